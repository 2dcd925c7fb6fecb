/**
 * The SMTP stand-in's DATA reader (local/smtp-data.ts) and large mail (issue 27 item 2): the trace fields go into
 * room left before the data instead of a copy of the whole mail (Buffer.concat of a 38 MB mail held the event loop
 * up to 1 s on a loaded machine), and spooled data is read back into shared memory, which the parse thread is
 * handed as it is (a structured clone of 38 MB took 0.5–1.5 s on the event loop). The bytes stay exactly the mail's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { SMTPServerDataStream } from 'smtp-server';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import { parseMail } from '../../lambdas/ingest/parse-mail';
import { crc32Combine } from '../../local/crc32';
import { readData, withHead } from '../../local/smtp-data';

let spoolDir: string;
beforeEach(() => (spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-smtp-data-'))));
afterEach(() => fs.rmSync(spoolDir, { recursive: true, force: true }));

/** `data` as the SMTP server streams it, in chunks of 64 KB. */
function dataStream(data: Buffer): SMTPServerDataStream {
  const stream = Object.assign(new PassThrough(), { sizeExceeded: false, byteLength: data.length });
  void (async () => {
    for (let at = 0; at < data.length; at += 65536) if (!stream.write(data.subarray(at, at + 65536))) await new Promise((r) => stream.once('drain', r));
    stream.end();
  })();
  return stream as unknown as SMTPServerDataStream;
}

const mail = (bytes: number) => Buffer.concat([Buffer.from('Subject: big\r\n\r\n'), Buffer.alloc(bytes, 'line of text\r\n')]);
const head = Buffer.from('Return-Path: <a@example.com>\r\nReceived: from x by y; Thu, 1 Jan 1970 00:00:00 +0000\r\n');

it('reads spooled data into shared memory after room for the trace fields, which go there without a copy', async () => {
  const data = mail(3 * 1024 * 1024);
  const read = await readData(dataStream(data), spoolDir, 4096);
  expect(read.data.buffer).toBeInstanceOf(SharedArrayBuffer);
  expect(read.data.length).toBe(4096 + data.length);
  expect(read.crc).toBe(crc32(data)); // computed as the data arrived
  const { raw, crc } = withHead(head, read, 4096);
  expect(raw.buffer).toBe(read.data.buffer); // the same memory: nothing copied
  expect(raw.equals(Buffer.concat([head, data]))).toBe(true);
  expect(crc).toBe(crc32(raw));
  expect(fs.readdirSync(spoolDir)).toEqual([]); // the spool file is removed
});

it('keeps small data in memory, and a head longer than the room is joined', async () => {
  const data = mail(10_000);
  const read = await readData(dataStream(data), spoolDir, 64);
  const joined = withHead(head, read, 64);
  expect(joined.raw.equals(Buffer.concat([head, data]))).toBe(true);
  expect(joined.crc).toBe(crc32(joined.raw));
  const roomy = withHead(head, await readData(dataStream(data), spoolDir, 4096), 4096);
  expect(roomy.raw.equals(Buffer.concat([head, data]))).toBe(true);
  expect(roomy.crc).toBe(crc32(roomy.raw));
});

it('tells the free-space headroom when data goes to a spool file, and again once the file is gone', async () => {
  const events: string[] = [];
  const spooling = () => {
    events.push(`spooling, files: ${fs.readdirSync(spoolDir).length}`);
    return () => events.push(`spooled, files: ${fs.readdirSync(spoolDir).length}`);
  };
  await readData(dataStream(mail(10_000)), spoolDir, 64, spooling);
  expect(events).toEqual([]); // in memory: no file
  await readData(dataStream(mail(3 * 1024 * 1024)), spoolDir, 64, spooling);
  expect(events).toEqual(['spooling, files: 0', 'spooled, files: 0']);
});

it("combines CRC-32s as zlib's crc32_combine: the CRC of A‖B from A's, B's and B's length", () => {
  const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919 + (i >> 3)) & 0xff));
  for (const [a, b] of [[0, 0], [0, 1], [1, 0], [13, 4096], [4096, 65_536], [1, 69_999], [69_999, 1], [33_333, 36_667]]) {
    const left = bytes.subarray(0, a);
    const right = bytes.subarray(a, a + b);
    expect(crc32Combine(crc32(left), crc32(right), right.length)).toBe(crc32(Buffer.concat([left, right])));
  }
  expect(crc32Combine(0xffffffff, 0, 0)).toBe(0xffffffff); // nothing appended: the first CRC unchanged
});

it('the parse thread reads a mail in shared memory as the in-process parser reads it', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-smtp-data-ctx-'));
  const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
  try {
    const data = Buffer.concat([Buffer.from('From: a@example.com\r\nSubject: shared\r\n\r\n'), Buffer.alloc(2 * 1024 * 1024, 'text 482913\r\n')]);
    const { raw } = withHead(head, await readData(dataStream(data), spoolDir, 4096), 4096);
    expect(raw.buffer).toBeInstanceOf(SharedArrayBuffer);
    const options = { envelopeFrom: 'a@example.com' };
    expect(await ctx.mail.parse(raw, options)).toEqual(await parseMail(Buffer.concat([head, data]), options));
    expect(raw.equals(Buffer.concat([head, data]))).toBe(true); // left as it was
  } finally {
    await ctx.stores.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 180_000);
