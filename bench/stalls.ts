/**
 * `npm run bench:stalls` (issue 27 item 2): does any load hold the local stack's one event loop? A probe asks for a
 * small answer (GET /v1/openapi.json) every 20 ms and the slowest answer is reported, first idle, then while each of
 * three hostile loads runs: ten parallel searches with a pathological `q` over 800 mails of 95 KB, 38 MB mails being
 * ingested (three at once), and eight parallel downloads of a 29 MB attachment. Goal: the slowest probe ≤ 100 ms.
 * The probe runs in a process of its own (stalls-probe.ts), so the load generator's own work is not counted.
 * The load average is printed beside: the machine is shared, and a probe waits for the CPU like everything else.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { http } from '../test/support/http';
import { eventually, sendMail, sendSized } from '../test/support/mail';
import { startStack } from '../test/support/stack';

const GOAL_MS = 100;
const SEARCH_MAILS = Number(process.env.BENCH_SEARCH_MAILS ?? 800);

/** Which loads run (BENCH_STALLS=search,large,downloads; all by default). */
const PHASES = new Set((process.env.BENCH_STALLS ?? 'search,large,downloads').split(','));

/** The probe runs in a child process (stalls-probe.ts) while `load` runs here; its figures once the load is done. */
async function probeWhile(apiUrl: string, load: () => Promise<unknown>): Promise<{ slowest: number; probes: number; failed: number }> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'stalls-probe.ts'), apiUrl], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  while (!out.includes('ready\n')) {
    if (child.exitCode !== null) throw new Error('the probe process ended before its first answer');
    await new Promise((r) => setTimeout(r, 20));
  }
  try {
    await load();
  } finally {
    child.stdin.end();
    await exited;
  }
  return JSON.parse(out.slice(out.indexOf('ready\n') + 6)) as { slowest: number; probes: number; failed: number };
}

const report = (what: string, { slowest, probes, failed }: { slowest: number; probes: number; failed: number }) =>
  console.log(`${what.padEnd(58)} slowest probe ${slowest.toFixed(0).padStart(5)} ms (goal ≤ ${GOAL_MS})  probes ${String(probes).padStart(4)} (${failed} failed)  load average ${os.loadavg()[0].toFixed(1)}`);

async function main() {
  const stack = await startStack({ store: 'embedded', env: { TEMPMAIL_RATE_LIMITS: 'off' } });
  const api = http(stack.apiUrl, stack.keys.enterprise);
  try {
    await (await fetch(`${stack.apiUrl}/v1/openapi.json`)).arrayBuffer(); // its handler loaded once, as after any first request
    report('idle', await probeWhile(stack.apiUrl, () => new Promise((r) => setTimeout(r, 2000))));

    if (PHASES.has('search')) await searches(stack, api);
    if (PHASES.has('large')) await largeMail(stack, api);
    if (PHASES.has('downloads')) await downloads(stack, api);
  } finally {
    await stack.stop();
  }
}

type Stack = Awaited<ReturnType<typeof startStack>>;
type Api = ReturnType<typeof http>;

async function searches(stack: Stack, api: Api) {
    // Searches: 800 mails of 95 KB of text, then ten at once with q = 199 × "a" + "b" (it matches none).
    const searched = (await api('POST', '/v1/inboxes', {})).body;
    const text = 'a'.repeat(95 * 1024);
    for (let i = 0; i < SEARCH_MAILS; i += 20) await Promise.all(Array.from({ length: Math.min(20, SEARCH_MAILS - i) }, (_, j) => sendMail(stack.smtpPort, { to: searched.email, subject: `m${i + j}`, text })));
    await eventually(async () => (await api('GET', `/v1/inboxes/${searched.id}`)).body.message_count === SEARCH_MAILS, 600_000, 'the search mails');
    const q = `${'a'.repeat(199)}b`;
    report(
      `10 parallel searches × 5 rounds, ${SEARCH_MAILS} mails of 95 KB`,
      await probeWhile(stack.apiUrl, async () => {
        for (let round = 0; round < 5; round++) await Promise.all(Array.from({ length: 10 }, () => api('GET', `/v1/inboxes/${searched.id}/messages?q=${q}`)));
      }),
    );

}

async function largeMail(stack: Stack, api: Api) {
    // Large mail: three 38 MB mails at once, twice, each waited for until stored.
    const large = (await api('POST', '/v1/inboxes', {})).body;
    report(
      '3 parallel 38 MB mails × 2 rounds, ingested',
      await probeWhile(stack.apiUrl, async () => {
        for (let round = 0; round < 2; round++) {
          const replies = await Promise.all([0, 1, 2].map(() => sendSized(stack.smtpPort, large.email, 38 * 1024 * 1024)));
          if (!replies.every((r) => r.startsWith('250'))) throw new Error(`large mail refused: ${replies.join(' | ')}`);
          // A poll cut off by a reset connection (the stack's keep-alive timer firing late after a stall) is polled again.
          await eventually(async () => (await api('GET', `/v1/inboxes/${large.id}`).catch(() => undefined))?.body.message_count === 3 * (round + 1), 600_000, 'the large mails');
        }
      }),
    );
    // Reading one back: its detail is a 38 MB body object, of which the answer carries each body's share.
    const [stored] = (await api('GET', `/v1/inboxes/${large.id}/messages?limit=1`)).body.messages;
    report(
      '4 parallel GETs of a 38 MB message × 3 rounds',
      await probeWhile(stack.apiUrl, async () => {
        for (let round = 0; round < 3; round++) {
          const replies = await Promise.all(Array.from({ length: 4 }, () => api('GET', `/v1/inboxes/${large.id}/messages/${stored.id}`)));
          if (!replies.every((r) => r.status === 200 && r.body.body_truncated === true)) throw new Error(`message reads: ${replies.map((r) => r.status).join(', ')}`);
        }
      }),
    );

}

async function downloads(stack: Stack, api: Api) {
    // Downloads: eight parallel GETs of a 29 MB attachment's link, three rounds.
    const attached = (await api('POST', '/v1/inboxes', {})).body;
    await sendMail(stack.smtpPort, { to: attached.email, subject: 'att', text: 'x', attachments: [{ filename: 'big.zip', content: randomBytes(29 * 1024 * 1024) }] });
    const message = await eventually(async () => (await api('GET', `/v1/inboxes/${attached.id}/messages`)).body.messages?.[0], 600_000, 'the attachment');
    const link = (await api('GET', `/v1/inboxes/${attached.id}/messages/${message.id}`)).body.attachments[0].download_url as string;
    let retried = 0;
    report(
      '8 parallel downloads of a 29 MB attachment × 3 rounds',
      await probeWhile(stack.apiUrl, async () => {
        for (let round = 0; round < 3; round++) {
          // A download whose kept-alive connection the stack closed as it was reused ("other side closed") is tried
          // once more on a new one, and counted.
          const once = async () => (await (await fetch(link)).arrayBuffer()).byteLength;
          const sizes = await Promise.all(Array.from({ length: 8 }, () => once().catch(() => (retried++, once()))));
          if (!sizes.every((s) => s === 29 * 1024 * 1024)) throw new Error(`download sizes ${sizes.join(', ')}`);
        }
      }),
    );
    console.log(`  downloads tried again after a closed connection: ${retried}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
