/**
 * GET /v1/inboxes/{id}/messages/{id}/snapshot (issue 24 item 5): a message normalised for snapshot tests, over real
 * HTTP with mail over real SMTP and through the typed client. Two mails alike but for their codes, tokens, dates and
 * inbox address snapshot the same. Runs in the embedded, dynamodb and aws-template projects (a large message's detail
 * is in its body object there: the route function's s3:GetObject grant is used).
 */
import { TempMailClient } from '../../client/src';
import { expectError, http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);
const client = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl });

/** A welcome mail as an application sends it, with what differs between runs passed in. */
const welcome = (email: string, code: string, token: string, date: string, padding = '') => ({
  to: email,
  from: 'Acme <noreply@acme.example>',
  subject: `Welcome! Your code is ${code}`,
  messageId: `<${token}.${code}@mail.acme.example>`,
  text: `Hi ${email},\nYour verification code is ${code}.\nVerify: https://acme.example/verify?token=${token}&utm_source=welcome&utm_medium=email\nSent ${date}.\n${padding}`,
  html: `<p>Hi ${email},</p><p>Your verification code is <b>${code}</b>.</p><a href="https://acme.example/verify?token=${token}&amp;utm_campaign=w">Verify</a><p>Sent ${date}.</p>`,
});

async function delivered(mail: (email: string) => ReturnType<typeof welcome>) {
  const inbox = (await api('POST', '/v1/inboxes', {})).body as { id: string; email: string };
  await sendMail(stack.smtpPort, mail(inbox.email));
  const summary = await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages[0], 15_000, 'the mail');
  return { inbox, messageId: summary.id as string };
}

it('answers subject, text and HTML with placeholders, the same for two runs that differ only in what changes', async () => {
  const first = await delivered((email) => welcome(email, '482913', 'f3a9c1e07b2d4e6f8a1b', '2026-11-26T16:02:33Z'));
  const second = await delivered((email) => welcome(email, '771204', '0b8e2d6c4a9f1e3d5c7b', 'Fri, 27 Nov 2026 09:15:00 +0000'));
  const reply = await api('GET', `/v1/inboxes/${first.inbox.id}/messages/${first.messageId}/snapshot`);
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({
    id: first.messageId,
    subject: 'Welcome! Your code is <CODE-1>',
    text: 'Hi <INBOX-ADDRESS>,\nYour verification code is <CODE-1>.\nVerify: https://acme.example/verify?token=<TOKEN-1>\nSent <DATE-1>.\n',
    html: '<p>Hi <INBOX-ADDRESS>,</p><p>Your verification code is <b><CODE-1></b>.</p><a href="https://acme.example/verify?token=<TOKEN-1>">Verify</a><p>Sent <DATE-1>.</p>',
    truncated: false,
  });
  const { id: _id, ...other } = await client.getMessageSnapshot(second.inbox.id, second.messageId);
  const { id: _first, ...same } = reply.body;
  expect(other).toEqual(same);
});

it('normalises a large message, whose detail is in its body object', async () => {
  const padding = 'Lorem ipsum dolor sit amet.\n'.repeat(6_000); // 168 KB of text: past the item's 100 KB of detail
  const { inbox, messageId } = await delivered((email) => welcome(email, '604211', 'aa11bb22cc33dd44ee55', '2026-11-26', padding));
  const snapshot = await client.getMessageSnapshot(inbox.id, messageId);
  expect(snapshot.text.startsWith('Hi <INBOX-ADDRESS>,\nYour verification code is <CODE-1>.')).toBe(true);
  expect(snapshot.text.length).toBeGreaterThan(padding.length);
  expect(snapshot.truncated).toBe(false);
});

it('is 404 for a message of another inbox or none, as GET message', async () => {
  const { inbox, messageId } = await delivered((email) => welcome(email, '330981', 'ffeeddccbbaa99887766', '2026-11-26'));
  const other = (await api('POST', '/v1/inboxes', {})).body as { id: string };
  expect(expectError(await api('GET', `/v1/inboxes/${other.id}/messages/${messageId}/snapshot`), 404)).toBe(`message not found: ${messageId}`);
  expect(expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages/msg_00000000000000000000000000/snapshot`), 404)).toBe('message not found: msg_00000000000000000000000000');
});
