/**
 * Codes and links test authors can trust (issue 24 item 3): a full message's `verification` names where each code
 * and link was found and each link's text, over real HTTP with mail over real SMTP; the typed client's code() and
 * link() pick exactly one or fail listing the candidates. Runs in the embedded, dynamodb and aws-template projects.
 */
import { code, link, TempMailClient, TempMailMatchError } from '../../client/src';
import { http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);
const client = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl });

const SIGNUP = {
  subject: 'Confirm your account',
  text: 'Hi!\nYour verification code is 482913.\nVerify your e-mail: https://acme.example/verify?t=abc\nHelp: https://acme.example/help',
  html:
    '<p>Your verification code is <b>482913</b>.</p><p><a href="https://acme.example/verify?t=abc&amp;src=html">Verify <i>your</i> e-mail</a></p>' +
    '<a href="https://acme.example/help">Help</a> <a href="https://acme.example/unsubscribe"><img alt="Unsubscribe" src="x.png"></a>',
};

let inbox: { id: string; email: string };
beforeAll(async () => {
  inbox = (await api('POST', '/v1/inboxes', {})).body as { id: string; email: string };
  await sendMail(stack.smtpPort, { to: inbox.email, from: 'Acme <noreply@acme.example>', ...SIGNUP });
  await eventually(async () => ((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count as number) === 1, 15_000, 'the mail');
});

it('GET message answers every code and link with its source, and each link with its text; codes and links stay as they were', async () => {
  const [summary] = (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages;
  const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages/${summary.id}`);
  expect(reply.status).toBe(200);
  expect(reply.body.codes).toEqual(['482913']);
  expect(reply.body.links).toEqual(['https://acme.example/verify?t=abc&src=html', 'https://acme.example/help', 'https://acme.example/unsubscribe', 'https://acme.example/verify?t=abc']);
  expect(reply.body.verification).toEqual({
    codes: [
      { value: '482913', source: 'text' },
      { value: '482913', source: 'html' },
    ],
    links: [
      { url: 'https://acme.example/verify?t=abc&src=html', text: 'Verify your e-mail', source: 'html' },
      { url: 'https://acme.example/help', text: 'Help', source: 'html' },
      { url: 'https://acme.example/unsubscribe', text: 'Unsubscribe', source: 'html' },
      { url: 'https://acme.example/verify?t=abc', text: 'Verify your e-mail', source: 'text' },
      { url: 'https://acme.example/help', text: 'Help', source: 'text' },
    ],
    links_truncated: false,
  });
});

it('the client picks the one code, and the one link by its text and source, from a message it waited for', async () => {
  const [message] = (await client.waitFor(inbox.id, { conditions: [{ field: 'subject', op: 'contains', value: 'confirm' }], timeout: 10 })).messages;
  expect(code(message)).toBe('482913');
  expect(link(message, { text: 'verify your e-mail', source: 'html' })).toBe('https://acme.example/verify?t=abc&src=html');
  expect(link(message, { text: /^unsubscribe$/i })).toBe('https://acme.example/unsubscribe');
  expect(link(await client.getMessage(inbox.id, message.id), { text: 'help' })).toBe('https://acme.example/help');
});

it('the client fails listing the candidates with their sources when more than one link matches', async () => {
  const [message] = (await client.waitFor(inbox.id, { timeout: 10 })).messages;
  let error: unknown;
  try {
    link(message, { text: 'verify' });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(TempMailMatchError);
  expect((error as Error).message).toBe(
    `expected exactly 1 link (text containing "verify") in message ${message.id} (subject "Confirm your account"), found 2:\n` +
      '  https://acme.example/verify?t=abc&src=html (html: "Verify your e-mail")\n' +
      '  https://acme.example/verify?t=abc (text: "Verify your e-mail")',
  );
});
