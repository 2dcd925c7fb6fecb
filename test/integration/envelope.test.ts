/**
 * The envelope kept (issue 23 item 5), over real SMTP and HTTP on each form (embedded, dynamodb, aws-template): each
 * message carries the RCPT TO it was delivered for (its +tag and case as sent) and MAIL FROM, in the list's summaries
 * and in the full message, while `to` stays the inbox address; the stored raw begins with the Return-Path and Received
 * fields the receiving server prepends (SES on AWS: local/trace-headers.ts has what and why), so the raw download and
 * the parsed headers show them. The typed client and the MCP server (the SDK's client over stdio) show the envelope.
 */
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TempMailClient } from '../../client/src';
import { http } from '../support/http';
import type { Json } from '../support/json';
import { eventually, sendRaw, smtpSession } from '../support/mail';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);
const client = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl });
const ROOT = path.resolve(__dirname, '../..');
const domain = stack.domains[1];

interface Summary {
  id: string;
  size: number;
  envelope: { from: string; to: string } | null;
}

async function newInbox(): Promise<{ id: string; email: string; user: string }> {
  const reply = await api('POST', '/v1/inboxes', { domain });
  if (reply.status !== 201) throw new Error(`POST /v1/inboxes: ${reply.status} ${JSON.stringify(reply.body)}`);
  const inbox = reply.body as { id: string; email: string };
  return { ...inbox, user: inbox.email.split('@')[0] };
}

const listed = (inboxId: string) =>
  eventually(async () => ((await api('GET', `/v1/inboxes/${inboxId}/messages`)).body.messages as unknown as Summary[] | undefined)?.[0], 30_000, `a message in ${inboxId}`);

const mail = (to: string, subject: string) => `From: Shop <shop@example.com>\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@example.com>\r\n\r\nhello\r\n`;

describe('one recipient with a +tag', () => {
  let inbox: { id: string; email: string; user: string };
  let tagged: string;
  let raw: string;
  let summary: Summary;
  beforeAll(async () => {
    inbox = await newInbox();
    tagged = `${inbox.user.toUpperCase()}+Signup@${domain}`;
    raw = mail(tagged, `tagged-${inbox.user}`);
    await sendRaw(stack.smtpPort, [tagged], raw, 'bounces+4711@sender.example');
    summary = await listed(inbox.id);
  }, 60_000);

  it('lists the message with its envelope: the RCPT TO as sent and MAIL FROM', () => {
    expect(summary.envelope).toEqual({ from: 'bounces+4711@sender.example', to: tagged });
  });

  it('the full message has the same envelope; `to` stays the inbox address', async () => {
    const message = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${summary.id}`)).body;
    expect(message.envelope).toEqual({ from: 'bounces+4711@sender.example', to: tagged });
    expect(message.to).toBe(inbox.email);
  });

  it('the parsed headers begin with Return-Path and Received, as SES prepends them', async () => {
    const message = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${summary.id}`)).body as { headers: { name: string; value: string }[] };
    const [returnPath, received, next] = message.headers;
    expect(returnPath).toEqual({ name: 'Return-Path', value: '<bounces+4711@sender.example>' });
    expect(received.name).toBe('Received');
    // SES names the one recipient of a mail in its Received field.
    expect(received.value).toMatch(new RegExp(`^from \\S+ \\(\\[[^\\]]+\\]\\)\\s+by \\S+ with \\S+ id \\S+\\s+for ${tagged.replace(/[+.]/g, '\\$&')};\\s+\\w{3}, \\d{2} \\w{3} \\d{4} \\d{2}:\\d{2}:\\d{2} \\+0000`));
    expect(next.name).toBe('From'); // then the mail's own fields, as sent
  });

  it('the raw download holds them before the mail as sent, and the size counts them', async () => {
    const bytes = Buffer.from(await client.getRawMessage(inbox.id, summary.id));
    const text = bytes.toString('utf8');
    expect(text).toMatch(/^Return-Path: <bounces\+4711@sender\.example>\r\nReceived: from /);
    const start = text.indexOf('From: Shop');
    expect(text.slice(start)).toBe(raw);
    expect(text.slice(0, start).split('\r\n').filter((line) => /^\S/.test(line)).map((line) => line.split(':')[0])).toEqual(['Return-Path', 'Received']);
    expect(bytes.length).toBe(summary.size);
  });

  it('the typed client reads the envelope from the list and the message', async () => {
    const page = await client.listMessages(inbox.id);
    expect(page.messages[0].envelope).toEqual({ from: 'bounces+4711@sender.example', to: tagged });
    expect((await client.getMessage(inbox.id, summary.id)).envelope?.to).toBe(tagged);
  });

  describe('the MCP server (stdio)', () => {
    let mcp: Client;
    beforeAll(async () => {
      execFileSync('npm', ['run', 'build', '-w', 'mcp'], { cwd: ROOT, stdio: 'ignore' });
      mcp = new Client({ name: 'tempmail-test', version: '1.0.0' });
      await mcp.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [path.join(ROOT, 'mcp', 'dist', 'index.js')],
          env: { PATH: process.env.PATH ?? '', TEMPMAIL_API_KEY: stack.keys.enterprise, TEMPMAIL_API_URL: stack.apiUrl },
          stderr: 'pipe',
        }),
      );
    }, 120_000);
    afterAll(() => mcp?.close());

    type ToolResult = { isError?: boolean; structuredContent?: Json; content: { type: string; text: string }[] };
    const call = async (name: string, args: Record<string, unknown>) => (await mcp.callTool({ name, arguments: args })) as ToolResult;

    it('list_messages gives each summary its envelope, and its text names the address delivered to', async () => {
      const result = await call('list_messages', { inbox_id: inbox.id });
      expect(result.isError).toBeFalsy();
      const messages = (result.structuredContent as { messages: Summary[] }).messages;
      expect(messages[0].envelope).toEqual({ from: 'bounces+4711@sender.example', to: tagged });
      expect(result.content[0].text).toContain(`delivered to ${tagged}`);
    });

    it('get_message and wait_for_message show the envelope', async () => {
      const got = await call('get_message', { inbox_id: inbox.id, message_id: summary.id });
      expect(got.isError).toBeFalsy();
      expect((got.structuredContent as { envelope: unknown }).envelope).toEqual({ from: 'bounces+4711@sender.example', to: tagged });
      expect(got.content[0].text).toContain(`Delivered to: ${tagged} (envelope from <bounces+4711@sender.example>)`);
      const waited = await call('wait_for_message', { inbox_id: inbox.id, timeout_seconds: 5 });
      expect((waited.structuredContent as { message: { envelope: unknown } }).message.envelope).toEqual({ from: 'bounces+4711@sender.example', to: tagged });
    });
  });
});

it('a mail to two inboxes in one transaction: each message its own recipient; Received names none (as SES)', async () => {
  const [a, b] = [await newInbox(), await newInbox()];
  const to = [`${a.user}+one@${domain}`, `${b.user}+two@${domain}`];
  await sendRaw(stack.smtpPort, to, mail(to.join(', '), `pair-${a.user}`));
  const [sa, sb] = [await listed(a.id), await listed(b.id)];
  expect(sa.envelope).toEqual({ from: 'sender@example.com', to: to[0] });
  expect(sb.envelope).toEqual({ from: 'sender@example.com', to: to[1] });
  const message = (await api('GET', `/v1/inboxes/${a.id}/messages/${sa.id}`)).body as { headers: { name: string; value: string }[] };
  expect(message.headers[0]).toEqual({ name: 'Return-Path', value: '<sender@example.com>' });
  expect(message.headers[1].name).toBe('Received');
  expect(message.headers[1].value).not.toMatch(/\bfor\b/);
}, 60_000);

it('a bounce (MAIL FROM:<>) keeps an empty envelope sender and Return-Path: <>', async () => {
  const inbox = await newInbox();
  const session = await smtpSession(stack.smtpPort);
  expect(await session.say('EHLO bounce.example')).toMatch(/^250 /);
  expect(await session.say('MAIL FROM:<>')).toMatch(/^250 /);
  expect(await session.say(`RCPT TO:<${inbox.email}>`)).toMatch(/^250 /);
  expect(await session.say('DATA')).toMatch(/^354 /);
  expect(await session.data(mail(inbox.email, `bounce-${inbox.user}`))).toMatch(/^250 /);
  await session.say('QUIT');
  const summary = await listed(inbox.id);
  expect(summary.envelope).toEqual({ from: '', to: inbox.email });
  const message = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${summary.id}`)).body as { headers: { name: string; value: string }[] };
  expect(message.headers[0]).toEqual({ name: 'Return-Path', value: '<>' });
  expect(message.headers[1].value).toMatch(/^from bounce\.example \(/);
}, 60_000);

it('greets at once: a client that talks the moment it connects is served, not sent "421 You talk too soon"', async () => {
  // smtp-server holds its greeting 100 ms and refuses a client that talks before it; the stack greets at once
  // (local/smtp-greeting.ts), so a whole pipelined transaction sent at connect is one ordinary session.
  const inbox = await newInbox();
  const socket = net.connect({ host: '127.0.0.1', port: stack.smtpPort });
  let replies = '';
  socket.on('data', (chunk) => (replies += chunk.toString('latin1')));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.once('connect', () =>
    socket.write(`EHLO early.example\r\nMAIL FROM:<sender@example.com>\r\nRCPT TO:<${inbox.email}>\r\nDATA\r\n`),
  );
  await eventually(async () => /^354 /m.test(replies) || /^421 /m.test(replies), 10_000, 'the reply to DATA');
  socket.write(`${mail(inbox.email, `early-${inbox.user}`)}\r\n.\r\nQUIT\r\n`);
  await closed; // the server closes after its 221
  const codes = replies.split('\r\n').filter((line) => /^\d{3} /.test(line)).map((line) => line.slice(0, 3));
  expect(codes).toEqual(['220', '250', '250', '250', '354', '250', '221']);
  expect((await listed(inbox.id)).envelope).toEqual({ from: 'sender@example.com', to: inbox.email });
}, 60_000);
