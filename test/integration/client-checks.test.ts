/**
 * The typed client's checks() (issue 25) against the shared local stack over HTTP: the answer is the endpoint's own
 * (the same sections, findings and their sender-written details as a plain GET gives), whatever sections the server
 * has; `links: true` is `?links=true`; an unknown message is TempMailApiError 404.
 */
import { TempMailApiError, TempMailClient, type MessageChecks } from '../../client/src';
import { HOSTILE_MESSAGE_ID, sendNewsletter } from '../support/check-mail';
import { http } from '../support/http';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const client = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl });
const api = http(stack.apiUrl, stack.keys.enterprise);
const path = (inboxId: string, messageId: string) => `/v1/inboxes/${inboxId}/messages/${messageId}/checks`;
/** An answer without the time it was computed, which differs between two checks. */
const timeless = ({ checked_at, ...rest }: MessageChecks) => (expect(Date.parse(checked_at)).not.toBeNaN(), rest);
/** The links section's details end with the time each request took, which differs between two checks too. */
const untimed = (checks: MessageChecks) => JSON.parse(JSON.stringify(timeless(checks)).replace(/ in \d+ ms"/g, ' in … ms"')) as unknown;

let inboxId: string;
let messageId: string;
beforeAll(async () => {
  inboxId = (await client.createInbox({ ttl: 600 })).id;
  const inbox = await client.getInbox(inboxId);
  messageId = await sendNewsletter(stack.smtpPort, inbox.email, async () => (await client.listMessages(inboxId)).messages);
}, 90_000);

it('resolves the endpoint\'s answer, every section by name, with the flaws and the quoted Message-ID as sent', async () => {
  const checks = await client.checks(inboxId, messageId);
  const rest = (await api('GET', path(inboxId, messageId))).body as unknown as MessageChecks;
  expect(timeless(checks)).toEqual(timeless(rest));
  expect(checks.message_id).toBe(messageId);
  expect(Object.keys(checks.sections)).toEqual(expect.arrayContaining(['sender', 'authentication']));
  const sender = checks.sections.sender;
  const result = (id: string) => sender.findings.find((f) => f.id === id)?.result;
  expect([result('list-unsubscribe-post'), result('date'), result('dkim-aligned'), result('message-id')]).toEqual(['fail', 'fail', 'fail', 'warn']);
  expect(sender.findings.find((f) => f.id === 'message-id')!.detail).toContain(HOSTILE_MESSAGE_ID);
  for (const section of Object.values(checks.sections)) {
    expect(['complete', 'partial', 'skipped']).toContain(section.status);
    for (const finding of section.findings) expect(finding).toEqual({ id: expect.any(String), result: expect.any(String), detail: expect.any(String) });
  }
});

it('asks for ?links=true with links: true, and answers as the endpoint does to it', async () => {
  const urls: string[] = [];
  const watching = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl, fetch: (input, init) => (urls.push(String(input)), fetch(input, init)) });
  const outcome = await watching.checks(inboxId, messageId, { links: true }).then(untimed, (error: unknown) => error);
  await watching.checks(inboxId, messageId);
  expect(urls.map((u) => new URL(u).search)).toEqual(['?links=true', '']);
  const rest = await api('GET', `${path(inboxId, messageId)}?links=true`);
  if (rest.status === 200) expect(outcome).toEqual(untimed(rest.body as unknown as MessageChecks));
  else expect(outcome).toMatchObject({ status: rest.status, message: (rest.body as { error: { message: string } }).error.message });
}, 90_000);

it('throws TempMailApiError 404 for a message the inbox does not hold', async () => {
  const error = await client.checks(inboxId, 'msg_00000000000000000000000000').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TempMailApiError);
  expect(error).toMatchObject({ status: 404 });
});
