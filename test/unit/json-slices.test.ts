/**
 * A large message's body object is made into JSON in slices, the event loop turning between them (issue 27 item 2):
 * a 38 MB text once went through JSON.stringify and Buffer.from in two synchronous calls that held the local stack
 * about a second each on a loaded machine. Counted in turns of the loop, not in milliseconds. The bytes are exactly
 * JSON.stringify's, and the embedded blob store keeps chunks as they are given (in a row or a file).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import { JSON_SLICE_CHARS, jsonInSlices } from '../../lambdas/core/json-slices';
import { messageItem } from '../../lambdas/core/message';
import type { MessageDetail } from '../../lambdas/core/model';
import { turnsDuring } from '../support/event-loop';

const detail = (text: string, html = ''): MessageDetail => ({
  text,
  html,
  attachments: [],
  attachment_count: 0,
  codes: ['482913'],
  links: ['https://example.com/a?b="c"'],
  links_truncated: false,
  cc: [],
  reply_to: [],
  message_id: '<m@example.com>',
  in_reply_to: null,
  headers: [{ name: 'Subject', value: 'caf\u00e9 \ud83d\ude00 "quoted"\n' }],
  headers_truncated: false,
  parse_error: null,
});

const base = {
  id: 'msg_1',
  inbox_id: 'inb_1',
  from: 'a@example.com',
  from_name: null,
  subject: 's',
  to: 'b@example.com',
  received_at: new Date(0).toISOString(),
  size: 1,
  auth: { spf: 'none', dkim: 'none', dmarc: 'none' },
  raw_key: 'raw',
} as unknown as Parameters<typeof messageItem>[0];

it('gives exactly the bytes of JSON.stringify, never splitting a character, escapes included', async () => {
  // Slices of 7 characters: pairs, multi-byte characters, quotes and controls fall on every kind of border.
  const text = `${'x'.repeat(5)}\ud83d\ude00"\\\n\u00e9\u4e2d\ud83d\ude00\u0001${'\ud83d\ude00'.repeat(20)}end`;
  for (const value of [detail(text, `<p>${text}</p>`), { ...detail(''), full_subject: undefined }, {}, { only: text }]) {
    const bytes = Buffer.concat(await jsonInSlices(value, 7));
    expect(bytes.toString()).toBe(JSON.stringify(value));
    expect(bytes.equals(Buffer.from(JSON.stringify(value)))).toBe(true);
  }
});

it("leaves a large message's body object to be written in slices, the loop turning between them", async () => {
  const text = 'a'.repeat(16 * 1024 * 1024 - 1) + '\u00e9';
  const { record, body } = messageItem(base, detail(text), 'body-key');
  expect(record.body_key).toBe('body-key');
  // The detail itself, not its JSON: serialising 16 MB here would be one synchronous call.
  expect(typeof body).toBe('object');
  const { result, turns } = await turnsDuring(() => jsonInSlices(body!));
  expect(turns).toBeGreaterThanOrEqual(Math.floor(text.length / JSON_SLICE_CHARS) - 1);
  const json = Buffer.concat(result);
  expect(json.length).toBe(Buffer.byteLength(JSON.stringify(body)));
  expect(JSON.parse(json.toString())).toEqual(body);
});

it('the embedded blob store keeps chunks in order, in a row or in a file', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-json-slices-'));
  const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
  try {
    const small = [Buffer.from('ab'), Buffer.from('c'), Buffer.alloc(0)];
    await ctx.stores.blobs.put('small', small, 'application/json');
    expect((await ctx.stores.blobs.get('small'))!.toString()).toBe('abc');
    const large = Array.from({ length: 5 }, (_, i) => Buffer.alloc(200 * 1024, 97 + i));
    await ctx.stores.blobs.put('large', large, 'application/json');
    expect((await ctx.stores.blobs.get('large'))!.equals(Buffer.concat(large))).toBe(true);
    expect(fs.readdirSync(path.join(dataDir, 'blobs'))).toHaveLength(1);
  } finally {
    await ctx.stores.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
