/**
 * extract_verification over stdio with the MCP SDK's own client (issue 24 item 3): codes and links with their sources
 * and link texts, the one code, the one link by its text, and the candidates listed (fenced) when there is no single
 * one. Mail over real SMTP to the shared stack (embedded and dynamodb projects).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { eventually, sendMail } from '../support/mail';
import { buildMcp, call, connect, fenceOf } from '../support/mcp';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
let client: Client;

beforeAll(async () => {
  buildMcp();
  client = await connect(stack.keys.enterprise);
}, 120_000);
afterAll(() => client?.close());

async function messageOf(mail: { subject: string; text: string; html?: string }) {
  const { id, email } = (await call(client, 'create_inbox', { ttl: 600 })).structuredContent as { id: string; email: string };
  await sendMail(stack.smtpPort, { to: email, ...mail });
  const listed = await eventually(async () => (await call(client, 'list_messages', { inbox_id: id })).structuredContent?.messages[0], 15_000, 'the mail');
  return { inbox_id: id, message_id: listed.id as string };
}

it('extract_verification gives the one code and the one link by its text, each candidate with its source, without the body', async () => {
  const ids = await messageOf({
    subject: 'Confirm your account',
    text: 'Your verification code is 482913. Body secret: do not show.\nVerify: https://acme.example/verify?t=abc',
    html: '<p>Your verification code is <b>482913</b>.</p><a href="https://acme.example/verify?t=abc">Verify your e-mail</a> <a href="https://acme.example/help">Help</a>',
  });
  const result = await call(client, 'extract_verification', { ...ids, link_text: 'verify your' });
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toMatchObject({
    code: '482913',
    link: 'https://acme.example/verify?t=abc',
    codes: ['482913'],
    verification: {
      codes: [
        { value: '482913', source: 'text' },
        { value: '482913', source: 'html' },
      ],
      links: [
        { url: 'https://acme.example/verify?t=abc', text: 'Verify your e-mail', source: 'html' },
        { url: 'https://acme.example/help', text: 'Help', source: 'html' },
        { url: 'https://acme.example/verify?t=abc', text: 'Verify', source: 'text' },
      ],
      links_truncated: false,
    },
  });
  const fence = fenceOf(result.content[0].text);
  expect(fence.inside).toContain('The code: 482913');
  expect(fence.inside).toContain('https://acme.example/help  (html: "Help")');
  expect(result.content[0].text).not.toContain('Body secret');
});

it('extract_verification lists the candidates, inside the fence, when no single code or link fits', async () => {
  const ids = await messageOf({ subject: 'Two codes', text: 'Your code is 111222. Your backup code is 333444.\nVerify: https://a.example/1\nVerify again: https://a.example/2' });
  const result = await call(client, 'extract_verification', { ...ids, link_text: 'verify' });
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toMatchObject({ code: null, link: null });
  const { before, inside } = fenceOf(result.content[0].text);
  expect(before).not.toContain('111222');
  expect(inside).toContain(`No single code:\nexpected exactly 1 code in message ${ids.message_id} (subject "Two codes"), found 2:\n  111222 (text)\n  333444 (text)`);
  expect(inside).toContain('No single link:');
  expect(inside).toContain('  https://a.example/2 (text: "Verify again")');
});

it('get_message_snapshot shows the normalised subject, text and HTML fenced, with the offset of the rest', async () => {
  const ids = await messageOf({
    subject: 'Your code is 482913',
    text: 'Your code is 482913. Verify: https://acme.example/v?token=abc&utm_source=mail (sent 2026-11-26T16:02:33Z)',
    html: '<p>Code <b>482913</b></p>',
  });
  const result = await call(client, 'get_message_snapshot', ids);
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toMatchObject({ id: ids.message_id, subject: 'Your code is <CODE-1>', truncated: false, parts: [{ part: 'text', offset: 0 }, { part: 'html', offset: 0 }] });
  const { inside } = fenceOf(result.content[0].text);
  expect(inside).toBe('\nSubject: Your code is <CODE-1>\n--- text ---\nYour code is <CODE-1>. Verify: https://acme.example/v?token=<TOKEN-1> (sent <DATE-1>)\n--- html ---\n<p>Code <b><CODE-1></b></p>');
  const cut = await call(client, 'get_message_snapshot', { ...ids, max_chars: 20 });
  expect(cut.structuredContent?.parts[0]).toMatchObject({ shown_chars: 10, next_offset: 10 });
  expect(cut.content[0].text).toMatch(/For more call get_message_snapshot with offset 10/);
});
