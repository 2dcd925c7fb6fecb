/**
 * extract_verification over stdio with the MCP SDK's own client (issue 24 item 3): codes and links with their sources
 * and link texts, the one code, the one link by its text, and the candidates listed (fenced) when there is no single
 * one. Mail over real SMTP to the shared stack (embedded, dynamodb and aws-template projects).
 */
import { spawnSync } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { eventually, sendMail } from '../support/mail';
import { buildMcp, call, connect, fenceOf, SERVER } from '../support/mcp';
import { sharedStack, testKind } from '../support/shared';

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

it('get_raw_message shows the MIME as received, fenced and bounded, with how much there is and the offset of the rest', async () => {
  const ids = await messageOf({ subject: 'Raw check', text: `Line one.\n${'x'.repeat(30_000)}` });
  const first = await call(client, 'get_raw_message', ids);
  expect(first.isError).toBeFalsy();
  const sc = first.structuredContent!;
  expect(sc).toMatchObject({ id: ids.message_id, part: 'raw', offset: 0, shown_chars: 20_000, next_offset: 20_000 });
  expect(sc.size_bytes).toBeGreaterThan(30_000);
  const { before, inside, after } = fenceOf(first.content[0].text);
  expect(before).toMatch(new RegExp(`^Raw mail of message ${ids.message_id}: ${sc.size_bytes} bytes\\.`));
  expect(inside).toMatch(/Subject: Raw check\n/);
  expect(after).toMatch(/Cut: characters 0–20000 of \d+ shown\. For more call get_raw_message with offset 20000 .*GET \/v1\/inboxes\/\{id\}\/messages\/\{id\}\/raw/);
  const rest = await call(client, 'get_raw_message', { ...ids, offset: 20_000, max_chars: 100_000 });
  expect(rest.structuredContent).toMatchObject({ offset: 20_000, shown_chars: sc.total_chars - 20_000 });
  expect(rest.structuredContent?.next_offset).toBeUndefined();
});

const HOOK = 'http://127.0.0.1:9/mcp-hook';
/**
 * The deployed rules take only a public https host that resolves (checked at create), which the shared template stack
 * has none of: webhooks.test.ts proves the template form's webhooks with a stack and a stand-in internet of its own.
 */
const localForms = testKind() === 'aws-template' ? it.skip : it;

localForms('list_webhooks, create_webhook and delete_webhook manage the account webhooks; the secret is shown once', async () => {
  const created = await call(client, 'create_webhook', { url: HOOK, events: ['message.received'], description: 'from MCP' });
  expect([created.isError ?? false, created.isError ? created.content[0].text : '']).toEqual([false, '']);
  const hook = created.structuredContent!;
  expect(hook).toMatchObject({ id: expect.any(String), url: HOOK, events: ['message.received'], description: 'from MCP', status: 'enabled', secret: expect.stringMatching(/^whsec_/) });
  expect(created.content[0].text).toContain(hook.secret);
  const listed = await call(client, 'list_webhooks', { limit: 100 });
  expect(listed.structuredContent?.webhooks).toContainEqual(expect.objectContaining({ id: hook.id, url: HOOK }));
  expect(JSON.stringify(listed)).not.toContain(hook.secret);
  expect((await call(client, 'delete_webhook', { webhook_id: hook.id })).structuredContent).toEqual({ deleted: true });
  const again = await call(client, 'delete_webhook', { webhook_id: hook.id });
  expect(again.isError).toBe(true);
  expect(again.content[0].text).toMatch(/TempMail API error 404/);
});

describe('extract-only mode (TEMPMAIL_MCP_EXTRACT_ONLY=1)', () => {
  let restricted: Client;
  beforeAll(async () => {
    restricted = await connect(stack.keys.enterprise, { TEMPMAIL_MCP_EXTRACT_ONLY: '1' });
  });
  afterAll(() => restricted?.close());

  it('offers no tool that shows a body, and wait_for_messages answers codes and links only', async () => {
    const names = (await restricted.listTools()).tools.map((t) => t.name);
    for (const bodyTool of ['get_message', 'get_raw_message', 'get_message_snapshot', 'wait_for_message', 'check_message']) expect(names).not.toContain(bodyTool);
    expect(names).toEqual(expect.arrayContaining(['wait_for_messages', 'extract_verification', 'list_messages', 'expect_no_message']));
    const ids = await messageOf({ subject: 'Confirm', text: 'Your verification code is 482913. BODY-ONLY-SECRET\nVerify: https://acme.example/v?t=1' });
    const waited = await call(restricted, 'wait_for_messages', { inbox_id: ids.inbox_id, timeout_seconds: 10 });
    expect(waited.isError).toBeFalsy();
    expect(waited.structuredContent?.messages).toEqual([expect.objectContaining({ message_id: ids.message_id, code: '482913', links: ['https://acme.example/v?t=1'] })]);
    expect(JSON.stringify(waited)).not.toContain('BODY-ONLY-SECRET');
    const missed = await call(restricted, 'wait_for_messages', { inbox_id: ids.inbox_id, conditions: [{ field: 'text', op: 'contains', value: 'absent' }], timeout_seconds: 1 });
    expect(missed.structuredContent).toMatchObject({ timed_out: true, near_misses: [{ id: ids.message_id, failed: [{ field: 'text', op: 'contains', value: 'absent' }] }] });
    expect(JSON.stringify(missed)).not.toContain('BODY-ONLY-SECRET');
    expect((await call(restricted, 'get_message', ids)).isError).toBe(true);
  });
});

describe('extract-only settings the server does not understand', () => {
  // The mode restricts what an agent reads: a misspelt setting stops the server instead of offering every tool.
  const start = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [SERVER, ...args], {
      env: { PATH: process.env.PATH ?? '', TEMPMAIL_API_KEY: stack.keys.enterprise, TEMPMAIL_API_URL: stack.apiUrl, ...env },
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
    });

  it.each([
    [[], { TEMPMAIL_MCP_EXTRACT_ONLY: 'true' }, /TEMPMAIL_MCP_EXTRACT_ONLY is "true"; it is 0 or 1/],
    [[], { TEMPMAIL_MCP_EXTRACT_ONLY: 'yes' }, /it is 0 or 1/],
    [['--extract_only'], {}, /unknown argument "--extract_only"; the only argument is --extract-only/],
    [['--bogus'], {}, /unknown argument "--bogus"/],
  ])('refuses %j with %j', (args, env, message) => {
    const run = start(args as string[], env as Record<string, string>);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(message);
  });
});
