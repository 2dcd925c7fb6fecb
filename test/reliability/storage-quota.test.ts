/**
 * The plan's storage quota (storage_bytes) over real SMTP: a mail that may not fit gets 452 before any 250, one mail
 * larger than the whole quota 552, another account is not affected, and deleting a message or an inbox gives the room
 * back. (What the stores count, exactly and on both, is in the store contract.)
 */
import { storedBytesBound } from '../../lambdas/core/limits';
import { http } from '../support/http';
import { eventually, sendSized } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';

const QUOTA = 400_000;
let stack: StackHandle;
beforeAll(async () => {
  stack = await startStack({ env: { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ dev: { storage_bytes: QUOTA, requests_per_minute: 100_000 } }) } });
}, 120_000);
afterAll(() => stack?.stop());

/** One mail of `bytes` (support/mail.ts sendSized): the reply to a refused RCPT, else to the DATA. */
const send = (to: string, bytes: number) => sendSized(stack.smtpPort, to, bytes);

it('refuses mail past the account’s storage quota with 452, one mail over the whole quota with 552, and frees room on delete', async () => {
  const api = http(stack.apiUrl, stack.keys.dev);
  const inbox = (await api('POST', '/v1/inboxes', {})).body as { id: string; email: string };
  const count = async (id: string) => (await api('GET', `/v1/inboxes/${id}`)).body.message_count as number;

  // Larger than the quota once its attachments may be counted (twice its size): never stored, so never accepted.
  expect(storedBytesBound(QUOTA / 2 + 10_000)).toBeGreaterThan(QUOTA);
  expect(await send(inbox.email, QUOTA / 2 + 10_000)).toMatch(/^552 5\.2\.2 /);

  // 60 KB mails, each visible before the next: accepted while the quota holds one more at most, then 452.
  const replies: string[] = [];
  for (let stored = 0; replies.length < 20; ) {
    const reply = await send(inbox.email, 60_000);
    replies.push(reply);
    if (!reply.startsWith('250')) break;
    stored++;
    await eventually(async () => (await count(inbox.id)) === stored, 30_000, `${stored} messages`);
  }
  const refused = replies[replies.length - 1];
  expect(refused).toMatch(/^452 4\.2\.2 Storage quota/);
  const accepted = replies.length - 1;
  // ~61 KB stored each: at least (400,000 - 2 × 61 KB) / 61 KB of them fit, and never more than the quota holds.
  expect(accepted).toBeGreaterThanOrEqual(4);
  expect(accepted).toBeLessThanOrEqual(Math.floor(QUOTA / 60_000));

  // Another account's inbox is not affected.
  const other = (await http(stack.apiUrl, stack.keys.startup)('POST', '/v1/inboxes', {})).body as { email: string };
  expect(await send(other.email, 60_000)).toMatch(/^250 /);

  // Deleting two messages gives their room back.
  const { messages } = (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body as { messages: { id: string }[] };
  for (const m of messages.slice(0, 2)) expect((await api('DELETE', `/v1/inboxes/${inbox.id}/messages/${m.id}`)).status).toBe(200);
  expect(await send(inbox.email, 60_000)).toMatch(/^250 /);
  await eventually(async () => (await count(inbox.id)) === accepted - 1, 30_000, 'the new message');

  // Deleting the inbox gives all of it back: a second inbox of the account takes as much again.
  expect((await api('DELETE', `/v1/inboxes/${inbox.id}`)).status).toBe(200);
  const next = (await api('POST', '/v1/inboxes', {})).body as { id: string; email: string };
  for (let i = 1; i <= accepted; i++) {
    expect(await send(next.email, 60_000)).toMatch(/^250 /);
    await eventually(async () => (await count(next.id)) === i, 30_000, `${i} messages`);
  }
}, 240_000);
