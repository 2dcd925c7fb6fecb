/** The typed client against the shared local stack: every endpoint, and errors as typed exceptions. */
import { TempMailApiError, TempMailClient, TempMailNetworkError } from '../../client/src';
import { eventually, sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const client = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl });

it('covers every endpoint', async () => {
  const created = await client.createInbox({ domain: 'inbox.test', ttl: 300 });
  expect(created).toMatchObject({ id: expect.stringMatching(/^inbox_/), email: expect.stringMatching(/@inbox\.test$/), ttl: 300 });
  expect(await client.getInbox(created.id)).toMatchObject({ id: created.id, message_count: 0, status: 'active' });
  expect(await client.listDomains()).toEqual({ domains: stack.domains });
  expect((await client.openApi()).openapi).toBe('3.1.0');

  const waiting = client.waitForMessage(created.id, { timeout: 10 });
  await sendMail(stack.smtpPort, { to: created.email, subject: 'client test', text: 'code 123456' });
  const waited = await waiting;
  expect(waited.timed_out).toBe(false);
  const id = waited.message!.id;
  expect(waited.message).toMatchObject({ subject: 'client test', codes: ['123456'] });

  const list = await client.listMessages(created.id, { limit: 10 });
  expect(list).toEqual({ messages: [expect.objectContaining({ id, subject: 'client test' })], total: 1 });
  expect((await client.getMessage(created.id, id)).text).toContain('code 123456');
  expect(Buffer.from(await client.getRawMessage(created.id, id)).toString()).toContain('Subject: client test');
  expect(await client.waitForMessage(created.id, { timeout: 1, after: id })).toEqual({ message: null, timed_out: true });
  expect(await client.deleteMessage(created.id, id)).toEqual({ deleted: true });
  expect((await client.getInbox(created.id)).message_count).toBe(0);
  for (const n of [1, 2]) await sendMail(stack.smtpPort, { to: created.email, subject: `to empty ${n}`, text: 'x' });
  await eventually(async () => (await client.getInbox(created.id)).message_count === 2, 10_000, 'two messages');
  expect(await client.emptyInbox(created.id)).toEqual({ deleted_count: 2, finished: true });
  expect(await client.getInbox(created.id)).toMatchObject({ id: created.id, message_count: 0, status: 'active' });
  expect(await client.deleteInbox(created.id)).toEqual({ deleted: true });
});

it("downloads an attachment's bytes by its id, without sending the key to the download link", async () => {
  const created = await client.createInbox({ ttl: 300 });
  const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x10, 0x80, 0x0d, 0x0a]); // binary: every byte must survive
  await sendMail(stack.smtpPort, {
    to: created.email,
    subject: 'with attachments',
    text: 'see attached',
    attachments: [
      { filename: 'notes.txt', content: 'plain notes' },
      { filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' },
    ],
  });
  const { message } = await client.waitForMessage(created.id, { timeout: 10 });
  const [notes, invoice] = message!.attachments;
  const seen: { url: string; key: string | null }[] = [];
  const watching = new TempMailClient({
    apiKey: stack.keys.enterprise,
    baseUrl: stack.apiUrl,
    fetch: (input, init) => {
      seen.push({ url: String(input), key: new Headers(init?.headers).get('x-api-key') });
      return fetch(input, init);
    },
  });
  expect(Buffer.from(await watching.downloadAttachment(created.id, message!.id, invoice.id))).toEqual(pdf);
  expect(Buffer.from(await client.downloadAttachment(created.id, message!.id, notes.id)).toString()).toBe('plain notes');
  // The API is asked with the key; the link without it.
  expect(seen.map((s) => [new URL(s.url).pathname.startsWith('/v1/'), s.key])).toEqual([[true, stack.keys.enterprise], [false, null]]);
  await expect(client.downloadAttachment(created.id, message!.id, 'att_missing')).rejects.toMatchObject({ status: 404, message: 'attachment not found: att_missing' });
  await expect(client.downloadAttachment(created.id, 'msg_00000000000000000000', notes.id)).rejects.toMatchObject({ status: 404 });
  await client.deleteInbox(created.id);
});

it('throws TempMailApiError with the status, the message and the request id', async () => {
  const error = await client.getInbox('inbox_00000000000000000000').catch((e) => e);
  expect(error).toBeInstanceOf(TempMailApiError);
  expect(error).toMatchObject({ status: 404, code: 404, message: 'inbox not found: inbox_00000000000000000000', requestId: expect.any(String) });
  await expect(client.createInbox({ ttl: 5 })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/ttl/) });
  await expect(new TempMailClient({ apiKey: 'nope', baseUrl: stack.apiUrl }).listDomains()).rejects.toMatchObject({ status: 401 });
  await expect(new TempMailClient({ apiKey: stack.keys.free, baseUrl: stack.apiUrl }).listDomains()).rejects.toMatchObject({ status: 403 });
});

it('throws TempMailNetworkError when the API cannot be reached', async () => {
  await expect(new TempMailClient({ apiKey: 'x', baseUrl: 'http://127.0.0.1:1' }).listDomains()).rejects.toBeInstanceOf(TempMailNetworkError);
});

it('manages webhooks: create (secret shown once), list, get, test, deliveries, delete', async () => {
  const created = await client.createWebhook({ url: 'http://127.0.0.1:9/client-test', events: ['message.received'] });
  expect(created.secret).toMatch(/^whsec_/);
  expect((await client.listWebhooks()).webhooks.map((w) => w.id)).toContain(created.id);
  const one = await client.getWebhook(created.id);
  expect(one).toMatchObject({ id: created.id, status: 'enabled', events: ['message.received'] });
  expect(JSON.stringify(one)).not.toContain(created.secret);
  expect((await client.testWebhook(created.id)).queued).toBe(true);
  expect(Array.isArray((await client.listWebhookDeliveries(created.id)).deliveries)).toBe(true);
  expect(await client.deleteWebhook(created.id)).toEqual({ deleted: true });
  await expect(client.getWebhook(created.id)).rejects.toMatchObject({ status: 404 });
});
