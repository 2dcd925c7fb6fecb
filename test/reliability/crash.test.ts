/**
 * Crash safety: 1,000 messages over SMTP while the local stack is killed with SIGKILL at a random moment; after a
 * restart every message that got a 250 is visible exactly once (none lost, none doubled). And a kill during a large
 * DATA leaves no spooled data behind once the stack is up again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { http } from '../support/http';
import { eventually, smtpSession } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';

let stack: StackHandle;
beforeAll(async () => {
  stack = await startStack({ env: { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ enterprise: { requests_per_minute: 1_000_000 } }) } });
});
afterAll(() => stack.stop());

it('loses and doubles nothing that got a 250 when killed mid-run', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const inboxes: { id: string; email: string }[] = [];
  for (let i = 0; i < 10; i++) inboxes.push((await api('POST', '/v1/inboxes', {})).body);

  const TOTAL = 1000;
  const accepted = new Set<string>();
  let next = 0;
  let killed = false;
  const killAfter = 150 + Math.floor(Math.random() * 600);
  const worker = async () => {
    while (next < TOTAL) {
      const n = next++;
      const subject = `crash-${n}`;
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: stack.smtpPort, secure: false, ignoreTLS: true, connectionTimeout: 2000, greetingTimeout: 2000, socketTimeout: 5000 });
      try {
        const info = await transport.sendMail({ from: 'load@example.com', to: inboxes[n % inboxes.length].email, subject, text: `message ${n}` });
        if (/^250/.test(info.response)) accepted.add(subject);
      } catch {
        // refused or cut off by the crash: not accepted, so owed nothing
      }
      if (!killed && accepted.size >= killAfter) {
        killed = true;
        await stack.kill();
      }
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  expect(killed).toBe(true);
  await stack.restart();

  const visible = await eventually(async () => {
    const subjects: string[] = [];
    for (const inbox of inboxes) {
      let cursor = '';
      do {
        const page = (await api('GET', `/v1/inboxes/${inbox.id}/messages?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).body;
        subjects.push(...page.messages.map((m: { subject: string }) => m.subject));
        cursor = page.next_cursor ?? '';
      } while (cursor);
    }
    return [...accepted].every((s) => subjects.includes(s)) ? subjects : null;
  }, 60_000, 'every accepted message to be visible');

  const counts = new Map<string, number>();
  for (const s of visible) counts.set(s, (counts.get(s) ?? 0) + 1);
  const doubled = [...counts.values()].filter((c) => c > 1).length;
  const lost = [...accepted].filter((s) => !counts.has(s)).length;
  console.log(`crash: killed after ${killAfter} accepted; ${accepted.size} got 250, ${visible.length} visible, lost ${lost}, doubled ${doubled}`);
  expect(lost).toBe(0);
  expect(doubled).toBe(0);
  // Totals agree with what is listed, once mail whose 250 the crash cut off (stored, owed nothing) is in too.
  await eventually(async () => {
    let total = 0;
    let listed = 0;
    for (const inbox of inboxes) {
      total += (await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count;
      listed += (await api('GET', `/v1/inboxes/${inbox.id}/messages?limit=100`)).body.messages.length;
    }
    return total === listed && listed >= visible.length ? true : null;
  }, 20_000, 'totals to agree with the listed messages');
}, 180_000);

it('leaves no spooled DATA behind after a kill during a DATA over 1 MB', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const inbox = (await api('POST', '/v1/inboxes', {})).body;
  const pid = stack.pid();
  // Wherever a stack has spooled: the data folder's spool now, the system temporary folder before.
  const spoolDir = path.join(stack.dataDir, 'smtp-spool');
  const spooled = () => [
    ...(fs.existsSync(spoolDir) ? fs.readdirSync(spoolDir).map((f) => path.join(spoolDir, f)) : []),
    ...fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(`tempmail-smtp-${pid}-`)).map((f) => path.join(os.tmpdir(), f)),
  ];
  const session = await smtpSession(stack.smtpPort);
  expect(await session.say('EHLO crash.example')).toMatch(/^250/);
  expect(await session.say('MAIL FROM:<big@example.com>')).toMatch(/^250/);
  expect(await session.say(`RCPT TO:<${inbox.email}>`)).toMatch(/^250/);
  expect(await session.say('DATA')).toMatch(/^354/);
  session.socket.write(`Subject: cut off\r\n\r\n${`${'x'.repeat(998)}\r\n`.repeat(2_000)}`); // 2 MB, no final dot
  const orphans = await eventually(async () => (spooled().length ? spooled() : null), 20_000, 'the DATA to be spooled');
  await stack.kill();
  expect(orphans.every((f) => fs.existsSync(f))).toBe(true); // the crash left them
  await stack.restart();
  expect(spooled()).toEqual([]);
  expect(orphans.filter((f) => fs.existsSync(f))).toEqual([]);
}, 120_000);
