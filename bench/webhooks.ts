/**
 * `npm run bench:webhooks`: time from the SMTP 250 to the `message.received` delivery arriving at a receiver, p50
 * and p99, while mail arrives at a paced rate (default 200 mails/s for 10 s over 10 SMTP sessions, to 10 inboxes
 * with one account-wide webhook), on the local stack's default (embedded) store. The receiver runs in this process
 * on 127.0.0.1, answers 200 at once and checks each signature. Also reports how many mails per second were
 * actually accepted: the stack answers 250 only once it can take a mail (backpressure), so an offered rate above
 * its capacity shows up as a lower accepted rate, not as a growing queue.
 * BENCH_RATE, BENCH_SECONDS, BENCH_STORE (embedded | dynamodb) change the run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { Webhook } from 'standardwebhooks';
import { startStack } from '../test/support/stack';
import { percentile } from './load';

const SESSIONS = 10;

async function main() {
  const rate = Number(process.env.BENCH_RATE ?? 200);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const store = process.env.BENCH_STORE === 'dynamodb' ? 'dynamodb' : 'embedded';
  const total = Math.round(rate * seconds);

  let verifier: Webhook | undefined;
  const deliveredAt = new Map<string, number>();
  let bad = 0;
  let duplicates = 0;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(204).end();
      try {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const event = verifier!.verify(Buffer.concat(chunks).toString('utf8'), headers) as { data: { message: { subject: string } } };
        const subject = event.data.message.subject;
        if (deliveredAt.has(subject)) duplicates++;
        else deliveredAt.set(subject, at);
      } catch {
        bad++;
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const port = (receiver.address() as AddressInfo).port;

  const stack = await startStack({
    store,
    env: {
      TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ enterprise: { requests_per_minute: 100_000_000, emails_per_day: 100_000_000 } }),
      TEMPMAIL_AUTHORIZER_CACHE_SECONDS: '60',
    },
  });
  try {
    const headers = { 'X-API-Key': stack.keys.enterprise, 'Content-Type': 'application/json' };
    const inboxes: { email: string }[] = [];
    for (let i = 0; i < SESSIONS; i++) inboxes.push((await (await fetch(`${stack.apiUrl}/v1/inboxes`, { method: 'POST', headers, body: '{}' })).json()) as { email: string });
    const hook = (await (
      await fetch(`${stack.apiUrl}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['message.received'] }) })
    ).json()) as { secret: string };
    verifier = new Webhook(hook.secret);

    // Paced: mail i is due at start + i / rate; each session sends the next due mail as soon as it is free.
    const acceptedAt = new Map<string, number>();
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const transport = nodemailer.createTransport({ host: '127.0.0.1', port: stack.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity });
        while (next < total) {
          const i = next++;
          const wait = started + (i * 1000) / rate - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const subject = `bench ${i}`;
          await transport.sendMail({ from: 'bench@example.com', to: inboxes[i % inboxes.length].email, subject, text: `Your code is ${100000 + i}. ${'Lorem ipsum dolor sit amet. '.repeat(60)}` });
          acceptedAt.set(subject, Date.now());
        }
        transport.close();
      }),
    );
    const sendSeconds = (Date.now() - started) / 1000;
    const deadline = Date.now() + 30_000;
    while (deliveredAt.size < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const delays = [...acceptedAt].filter(([s]) => deliveredAt.has(s)).map(([s, t]) => Math.max(0, deliveredAt.get(s)! - t)).sort((a, b) => a - b);
    console.log(`\nbench:webhooks — ${store} store, ${SESSIONS} SMTP sessions, one account-wide webhook, receiver on 127.0.0.1`);
    console.log(
      `  offered ${rate} mails/s for ${seconds} s: accepted ${(total / sendSeconds).toFixed(0)} mails/s; delivered ${deliveredAt.size} of ${total} ` +
        `(${duplicates} repeated, ${bad} failed verification)\n` +
        `  250 → delivered: p50 ${percentile(delays, 50).toFixed(0)} ms, p99 ${percentile(delays, 99).toFixed(0)} ms, max ${delays[delays.length - 1]?.toFixed(0)} ms`,
    );
  } finally {
    await stack.stop();
    receiver.closeAllConnections();
    receiver.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
