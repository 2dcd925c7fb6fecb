/**
 * What get_message says was cut. More attachments than the API lists (it keeps 100 in MIME order; `attachment_count` is the mail's number, issue 26's
 * known defects): the MCP server's get_message says how many the mail has, not only how many it was given. Through
 * the MCP protocol (an in-memory transport) against a client that answers one such message.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Message, TempMailClient } from 'tempmail-client';
import { createServer } from '../../mcp/src/server';

const attachments = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `att_${i}`, filename: `f${i}.txt`, content_type: 'text/plain', size: 1, content_id: null, download_url: `https://x.test/${i}` }));

const message = (listed: number, count: number): Message => ({
  id: 'msg_00000000000000000000000001',
  from: 'a@example.com',
  from_name: null,
  to: 'b@example.com',
  envelope: null,
  cc: [],
  reply_to: [],
  subject: 'many files',
  text: 'see the files',
  html: '',
  body_truncated: false,
  received_at: '2026-01-01T00:00:00.000Z',
  size: 1,
  message_id: null,
  in_reply_to: null,
  attachments: attachments(listed),
  attachment_count: count,
  attachments_truncated: count > listed,
  codes: [],
  links: [],
  links_truncated: false,
  verification: { codes: [], links: [], links_truncated: false },
  headers: [],
  headers_truncated: false,
  auth: { spf: 'GRAY', dkim: 'GRAY', dmarc: 'GRAY', spam: 'PASS', virus: 'PASS' },
  parse_error: null,
});

async function getMessageText(m: Message): Promise<string> {
  const server = createServer({ getMessage: async () => m } as unknown as TempMailClient);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  try {
    const result = await client.callTool({ name: 'get_message', arguments: { inbox_id: 'inbox_00000000000000000001', message_id: m.id } });
    return (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
  } finally {
    await client.close();
    await server.close();
  }
}

it('says how many attachments the mail has when the API listed only its first 100', async () => {
  expect(await getMessageText(message(100, 990))).toMatch(/attachments: 20 of 990 shown/);
});

it('says nothing of a cut when every attachment is shown', async () => {
  const text = await getMessageText(message(3, 3));
  expect(text).toContain('f2.txt');
  expect(text).not.toMatch(/attachments: \d+ of/);
});

it('says when the API itself served only the start of a body, and that the whole mail is in get_raw_message', async () => {
  const cut = await getMessageText({ ...message(0, 0), text: 'x'.repeat(50_000), body_truncated: true });
  expect(cut).toMatch(/the API served only the start of the body \(body_truncated\): those 50000 characters are all get_message can page through/);
  expect(cut).toMatch(/the whole mail, body included, is in get_raw_message/);
  expect(cut).not.toMatch(/every field in full/i);
  const whole = await getMessageText({ ...message(0, 0), text: 'x'.repeat(50_000) });
  expect(whole).toMatch(/every field in full is in the REST API's GET/);
  expect(whole).not.toMatch(/body_truncated/);
});
