/**
 * Address probing over SMTP: a stranger who learns one address must not be able to test thousands of others in a
 * session, tell an expired address from one that never lived, or spend the whole account's daily quota on one
 * inbox when the plan caps a single inbox's day.
 */
import { http } from '../support/http';
import { sendMail, smtpSession } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';
import { storesFor } from '../support/store';

const TARPIT_STEP_MS = 300;
let stack: StackHandle; // no tarpit: the cap and the replies, quickly
let slow: StackHandle; // the tarpit as it ships, with a known step

beforeAll(async () => {
  [stack, slow] = await Promise.all([
    startStack({ env: { TEMPMAIL_SMTP_TARPIT_MS: '0', TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ startup: { emails_per_inbox_per_day: 2 } }) } }),
    startStack({ env: { TEMPMAIL_SMTP_TARPIT_MS: String(TARPIT_STEP_MS) } }),
  ]);
}, 120_000);
afterAll(async () => {
  await storesFor(stack).close();
  await Promise.all([stack?.stop(), slow?.stop()]);
});

const newInbox = async (on: StackHandle, key = on.keys.enterprise, body: object = {}) =>
  (await http(on.apiUrl, key)('POST', '/v1/inboxes', body)).body as { id: string; email: string };

it('gives an unknown, a deleted and an expired address one and the same reply', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const deleted = await newInbox(stack);
  await api('DELETE', `/v1/inboxes/${deleted.id}`);
  const expired = await newInbox(stack);
  await storesFor(stack).setExpiry(expired.id, expired.email, Math.floor(Date.now() / 1000) - 1);
  const session = await smtpSession(stack.smtpPort);
  await session.say('EHLO probe');
  await session.say('MAIL FROM:<probe@example.com>');
  const replies = [];
  for (const address of ['never-lived-here@tempmail.local', deleted.email, expired.email]) replies.push(await session.say(`RCPT TO:<${address}>`));
  session.close();
  expect(replies).toEqual(['550 5.1.1 No such mailbox', '550 5.1.1 No such mailbox', '550 5.1.1 No such mailbox']);
});

it("counts refused recipients toward the session's cap of 100, so a session probes at most 100 addresses", async () => {
  const live = await newInbox(stack);
  const session = await smtpSession(stack.smtpPort);
  await session.say('EHLO probe');
  await session.say('MAIL FROM:<probe@example.com>');
  // Pipelined, as the probe was: 150 guesses in one write.
  const replies = await Promise.all(Array.from({ length: 150 }, (_, i) => session.say(`RCPT TO:<guess${i}@tempmail.local>`)));
  expect(replies.slice(0, 100).every((r) => r.startsWith('550 '))).toBe(true);
  expect(replies.slice(100).every((r) => r.startsWith('452 4.5.3'))).toBe(true);
  // The cap holds for the rest of the session, across RSET and a new transaction, for a live address too.
  await session.say('RSET');
  await session.say('MAIL FROM:<probe@example.com>');
  expect(await session.say(`RCPT TO:<${live.email}>`)).toMatch(/^452 4\.5\.3/);
  session.close();
}, 60_000);

it('answers each refused recipient past the third later than the one before (a tarpit)', async () => {
  const session = await smtpSession(slow.smtpPort);
  await session.say('EHLO probe');
  await session.say('MAIL FROM:<probe@example.com>');
  for (let i = 0; i < 3; i++) expect(await session.say(`RCPT TO:<first${i}@tempmail.local>`)).toMatch(/^550 /);
  const started = Date.now();
  for (let i = 0; i < 3; i++) expect(await session.say(`RCPT TO:<later${i}@tempmail.local>`)).toMatch(/^550 /);
  // A lower bound only: the server waits 1, 2 and 3 steps before these replies, however fast the machine.
  expect(Date.now() - started).toBeGreaterThanOrEqual(6 * TARPIT_STEP_MS);
  session.close();
}, 60_000);

it("caps one inbox's day when the plan sets emails_per_inbox_per_day, leaving the account's other inboxes open", async () => {
  const target = await newInbox(stack, stack.keys.startup);
  const other = await newInbox(stack, stack.keys.startup);
  for (let i = 0; i < 2; i++) expect((await sendMail(stack.smtpPort, { to: target.email, subject: `ok ${i}`, text: 'x' })).response).toMatch(/^250/);
  const session = await smtpSession(stack.smtpPort);
  await session.say('EHLO flood');
  await session.say('MAIL FROM:<flood@example.com>');
  expect(await session.say(`RCPT TO:<${target.email}>`)).toMatch(/^452 /);
  expect(await session.say(`RCPT TO:<${other.email}>`)).toMatch(/^250 /);
  session.close();
}, 60_000);
