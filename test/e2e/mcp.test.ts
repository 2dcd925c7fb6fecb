/**
 * The MCP server as it ships (mcp/dist, built with esbuild), started as a subprocess and driven over stdio by the
 * MCP SDK's own client, against the shared local stack, with mail over real SMTP. How it gets installed and started
 * (`npx tempmail-mcp` after `npm ci`) is mcp-install.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { sendMail, sendRaw } from '../support/mail';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const MCP_DIR = path.resolve(__dirname, '../../mcp');
const SERVER = path.join(MCP_DIR, 'dist', 'index.js');

async function connect(apiKey: string) {
  const client = new Client({ name: 'tempmail-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { PATH: process.env.PATH ?? '', TEMPMAIL_API_KEY: apiKey, TEMPMAIL_API_URL: stack.apiUrl },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

type ToolResult = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] }; // eslint-disable-line @typescript-eslint/no-explicit-any
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolResult;

beforeAll(() => {
  execFileSync('npm', ['run', 'build', '-w', 'mcp'], { cwd: path.resolve(__dirname, '../..'), stdio: 'ignore' });
});

describe('tempmail-mcp over stdio', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(stack.keys.enterprise);
  });
  afterAll(() => client.close());

  it('lists its tools with schemas and hints', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([
      'create_inbox', 'delete_inbox', 'extract_verification', 'get_inbox', 'get_message', 'list_domains', 'list_inboxes', 'list_messages', 'wait_for_message',
    ]);
    for (const name of ['list_inboxes', 'get_inbox', 'list_messages', 'get_message', 'list_domains', 'wait_for_message', 'extract_verification']) {
      expect(byName[name].annotations?.readOnlyHint).toBe(true);
    }
    expect(byName.delete_inbox.annotations?.destructiveHint).toBe(true);
    expect(byName.delete_inbox.annotations?.idempotentHint).toBe(false); // a second delete is 404
    for (const tool of tools) expect({ tool: tool.name, additionalProperties: tool.inputSchema.additionalProperties }).toEqual({ tool: tool.name, additionalProperties: false });
    expect(byName.wait_for_message.description).toMatch(/Without after, every message in the inbox counts/);
    expect(byName.get_message.inputSchema.required).toEqual(['inbox_id', 'message_id']);
    expect((byName.get_message.inputSchema.properties as Record<string, { enum?: string[] }>).format.enum).toEqual(['text', 'html', 'full']);
    expect(byName.wait_for_message.outputSchema?.properties).toHaveProperty('timed_out');
    for (const tool of tools) expect(tool.description!.length).toBeGreaterThan(30);
  });

  it('creates an inbox, waits for a verification mail, extracts its code and link, deletes the inbox', async () => {
    const created = await call(client, 'create_inbox', { ttl: 600 });
    expect(created.isError).toBeFalsy();
    const { id, email } = created.structuredContent;
    expect(email).toMatch(/@tempmail\.local$/);

    const waiting = call(client, 'wait_for_message', { inbox_id: id, timeout_seconds: 20, subject_contains: 'code' });
    await new Promise((r) => setTimeout(r, 300));
    await sendMail(stack.smtpPort, {
      to: email,
      subject: 'Your code',
      text: 'Your verification code is 482913. Or click https://example.com/verify?token=abc',
      html: '<p>Your verification code is <b>482913</b>.</p><p><a href="https://example.com/verify?token=abc">Verify</a></p>',
    });
    const waited = await waiting;
    expect(waited.isError).toBeFalsy();
    expect(waited.structuredContent.timed_out).toBe(false);
    const message = waited.structuredContent.message;
    expect(message.subject).toBe('Your code');
    expect(message.untrusted_content_notice).toMatch(/untrusted/);
    expect(waited.content[0].text).toContain('<<<UNTRUSTED MESSAGE CONTENT');

    const found = await call(client, 'extract_verification', { inbox_id: id, message_id: message.id });
    expect(found.structuredContent.codes[0]).toBe('482913');
    expect(found.structuredContent.links).toContain('https://example.com/verify?token=abc');

    const text = await call(client, 'get_message', { inbox_id: id, message_id: message.id });
    expect(text.structuredContent.text).toContain('482913');
    expect(text.structuredContent.html).toBeUndefined();
    const full = await call(client, 'get_message', { inbox_id: id, message_id: message.id, format: 'full' });
    expect(full.structuredContent.html).toContain('<b>482913</b>');
    expect(full.structuredContent.auth).toEqual({ spf: 'DISABLED', dkim: 'DISABLED', dmarc: 'DISABLED', spam: 'DISABLED', virus: 'DISABLED' });
    expect(full.structuredContent.headers).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Subject' })]));

    const inboxes = await call(client, 'list_inboxes', { limit: 100 });
    expect(inboxes.structuredContent.inboxes).toContainEqual(expect.objectContaining({ id, email, status: 'active', message_count: 1 }));
    const listed = await call(client, 'list_messages', { inbox_id: id });
    expect(listed.structuredContent.total).toBe(1);
    expect((await call(client, 'get_inbox', { inbox_id: id })).structuredContent.message_count).toBe(1);
    expect((await call(client, 'list_domains')).structuredContent.domains[0]).toBe('tempmail.local');

    expect((await call(client, 'delete_inbox', { inbox_id: id })).structuredContent).toEqual({ deleted: true });
    const gone = await call(client, 'get_inbox', { inbox_id: id });
    expect(gone.isError).toBe(true);
    expect(gone.content[0].text).toMatch(/TempMail API error 404: inbox not found/);
  }, 60_000);

  it('reads an HTML-only mail as the text the API derived, and one of a megabyte of nested tags at once', async () => {
    const { id, email } = (await call(client, 'create_inbox', {})).structuredContent;
    await sendMail(stack.smtpPort, { to: email, subject: 'html only', html: '<p>Your code is <b>482913</b></p>' });
    const plain = await call(client, 'wait_for_message', { inbox_id: id, timeout_seconds: 10, subject_contains: 'html only' });
    expect(plain.structuredContent.message.text).toContain('Your code is 482913');
    // No visible text at all: the server once converted this HTML itself, held its event loop for 25 s and failed.
    const nested = '<div>'.repeat(200_000).match(/.{1,900}/g)!.join('\r\n');
    await sendRaw(stack.smtpPort, [email], `From: a@example.com\r\nSubject: divs\r\nContent-Type: text/html\r\n\r\n${nested}\r\n`);
    const deep = await call(client, 'wait_for_message', { inbox_id: id, timeout_seconds: 10, subject_contains: 'divs' });
    expect(deep.isError).toBeFalsy();
    expect(deep.structuredContent.message.text).toMatch(/^\(no text: the message is HTML without text/);
    const html = await call(client, 'get_message', { inbox_id: id, message_id: deep.structuredContent.message.id, format: 'html' });
    expect(html.structuredContent.html.length).toBeGreaterThan(1_000_000);
    await call(client, 'delete_inbox', { inbox_id: id });
  }, 60_000);

  it('rejects unknown arguments, as the REST API rejects unknown fields', async () => {
    const result = await client.callTool({ name: 'create_inbox', arguments: { ttl: 600, usrname: 'typo' } }).catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/usrname/);
  });

  it('without after, returns a message already in the inbox at once; with after, only a newer one', async () => {
    const { id, email } = (await call(client, 'create_inbox', {})).structuredContent;
    await sendMail(stack.smtpPort, { to: email, subject: 'already here', text: 'x' });
    const first = await call(client, 'wait_for_message', { inbox_id: id, timeout_seconds: 10 });
    expect(first.structuredContent.message.subject).toBe('already here');
    const again = await call(client, 'wait_for_message', { inbox_id: id, timeout_seconds: 10 });
    expect(again.structuredContent.message.id).toBe(first.structuredContent.message.id);
    const newer = await call(client, 'wait_for_message', { inbox_id: id, timeout_seconds: 1, after: first.structuredContent.message.id });
    expect(newer.structuredContent).toMatchObject({ timed_out: true, message: null });
  }, 30_000);

  it('returns a timed-out result (not an error) when nothing arrives, within its bound', async () => {
    const { id } = (await call(client, 'create_inbox', {})).structuredContent;
    const started = Date.now();
    const result = await call(client, 'wait_for_message', { inbox_id: id, timeout_seconds: 2 });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ timed_out: true, message: null });
    expect(result.content[0].text).toMatch(/call wait_for_message again/i);
  });
});

it('surfaces a bad API key as a tool error naming 401', async () => {
  const client = await connect('tm_not_a_real_key');
  try {
    const result = await call(client, 'create_inbox', {});
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/TempMail API error 401/);
  } finally {
    await client.close();
  }
});

it('refuses to start without TEMPMAIL_API_KEY, saying so', () => {
  const run = spawnSync(process.execPath, [SERVER], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 10_000 });
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/TEMPMAIL_API_KEY is not set/);
});
