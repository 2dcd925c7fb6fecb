/**
 * The embedded form's inbound spool (local/inbound-spool.ts) on its own, on real files: what was appended (durable
 * before its 250) comes back at the next open, in order and intact; a torn tail (a group whose fdatasync never
 * returned) is skipped without losing the records before it; a segment is handed over to the store (renamed, never
 * replayed) only when all its mail is stored and the store has synced, and stays (to be replayed) when that sync fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeSegment, encodeRecord, InboundSpool, OWN_SEGMENT_BYTES, SEGMENT_BYTES } from '../../local/inbound-spool';
import { segmentFileName } from '../../lambdas/layout/inbound-spool-files';
import type { Envelope } from '../../lambdas/usecases/inbound';

const envelope = (n: number): Envelope => ({ mailId: `mail-${n}`, recipients: [`to${n}@tempmail.local`], envelopeFrom: 'from@example.com', receivedAt: new Date(n * 1000).toISOString() });
const raw = (n: number) => Buffer.from(`Subject: spool ${n}\r\n\r\n${'x'.repeat(n * 37)}\r\n`);
const segments = (dir: string) => fs.readdirSync(dir).filter((f) => f.startsWith('segment-')).sort();

let dir: string;
const lines: string[] = [];
const log = (line: string) => lines.push(line);
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-spool-'));
  lines.length = 0;
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('gives back at the next open, in order and intact, every record whose append resolved', async () => {
  const spool = new InboundSpool(dir, async () => undefined, async () => undefined, log);
  expect(await spool.open()).toEqual([]);
  const places = await Promise.all(Array.from({ length: 50 }, (_, i) => spool.append(envelope(i), raw(i))));
  // A retry reads a record's raw mail again from where the append put it.
  expect(await spool.read(places[17])).toEqual(raw(17));
  const again = new InboundSpool(dir, async () => undefined, async () => undefined, log);
  const replayed = await again.open();
  expect(replayed.map((r) => r.envelope)).toEqual(Array.from({ length: 50 }, (_, i) => envelope(i)));
  expect(replayed.map((r) => r.raw.toString())).toEqual(Array.from({ length: 50 }, (_, i) => raw(i).toString()));
  expect(lines).toEqual([]);
});

it.each([
  ['cut short', (file: string) => fs.truncateSync(file, fs.statSync(file).size - 7)],
  ['with garbage after it', (file: string) => fs.appendFileSync(file, Buffer.alloc(40, 0xab))],
  ['with its last bytes changed', (file: string) => {
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 3] ^= 0xff;
    fs.writeFileSync(file, bytes);
  }],
])('skips a torn tail (%s) and replays every whole record before it', async (_, tear) => {
  const spool = new InboundSpool(dir, async () => undefined, async () => undefined, log);
  await spool.open();
  for (let i = 0; i < 5; i++) await spool.append(envelope(i), raw(i));
  const [file] = segments(dir);
  tear(path.join(dir, file));
  const replayed = await new InboundSpool(dir, async () => undefined, async () => undefined, log).open();
  const whole = decodeSegment(fs.readFileSync(path.join(dir, file))).records.length;
  expect(replayed.map((r) => r.envelope.mailId)).toEqual(Array.from({ length: whole }, (_, i) => `mail-${i}`));
  expect(whole).toBeGreaterThanOrEqual(4);
  expect(lines.some((l) => /bytes after its last whole record skipped/.test(l))).toBe(true);
});

it('hands a segment over (renamed stored-) once all its mail is stored and synced, and never before; a failed sync leaves it for replay', async () => {
  let syncs = 0;
  let failSync = false;
  const handedOver: number[] = [];
  const spool = new InboundSpool(
    dir,
    async () => {
      syncs++;
      if (failSync) throw new Error('disk gone');
    },
    async (segment) => void handedOver.push(segment),
    log,
  );
  await spool.open();
  const places = await Promise.all([0, 1, 2].map((i) => spool.append(envelope(i), raw(i))));
  spool.stored(places[0]);
  spool.stored(places[1]);
  await new Promise((r) => setTimeout(r, 20));
  expect(segments(dir)).toHaveLength(1);
  expect(syncs).toBe(0);
  spool.stored(places[2]);
  for (let i = 0; i < 100 && handedOver.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(segments(dir)).toEqual([]);
  expect(syncs).toBe(1);
  // Handed over under its new name, with its bytes where they were: the store keeps stored mail's raw there.
  expect(handedOver).toEqual([places[0].segment]);
  const stored = path.join(dir, segmentFileName('stored', places[0].segment));
  expect(fs.readFileSync(stored).subarray(places[1].offset, places[1].offset + places[1].length)).toEqual(raw(1));
  // Never replayed: the next open finds nothing to ingest.
  expect(await new InboundSpool(dir, async () => undefined, async () => undefined, log).open()).toEqual([]);

  // The next append starts a new segment, numbered past it; its sync fails: the segment stays, and the next open replays it.
  failSync = true;
  const place = await spool.append(envelope(9), raw(9));
  expect(place.segment).toBeGreaterThan(places[0].segment);
  spool.stored(place);
  for (let i = 0; i < 100 && !lines.some((l) => /not handed over/.test(l)); i++) await new Promise((r) => setTimeout(r, 10));
  expect(lines.some((l) => /not handed over \(disk gone\)/.test(l))).toBe(true);
  expect(handedOver).toHaveLength(1);
  const replayed = await new InboundSpool(dir, async () => undefined, async () => undefined, log).open();
  expect(replayed.map((r) => r.envelope.mailId)).toEqual(['mail-9']);
});

it('renames segments an older version named with 10 digits, and replays them', async () => {
  const old = path.join(dir, 'segment-0000000007');
  fs.writeFileSync(old, Buffer.concat(encodeRecord(envelope(3), raw(3))));
  const spool = new InboundSpool(dir, async () => undefined, async () => undefined, log);
  const replayed = await spool.open();
  expect(replayed.map((r) => [r.envelope.mailId, r.place.segment])).toEqual([['mail-3', 7]]);
  expect(fs.readdirSync(dir)).toEqual([segmentFileName('segment', 7)]);
  expect(await spool.read(replayed[0].place)).toEqual(raw(3));
});

it('gives a large mail a segment of its own and keeps a segment near its size, so no message keeps much besides itself', async () => {
  const spool = new InboundSpool(dir, async () => undefined, async () => undefined, log);
  await spool.open();
  const big = Buffer.alloc(OWN_SEGMENT_BYTES + 10, 0x41);
  const [a, b] = await Promise.all([spool.append(envelope(1), raw(1)), spool.append(envelope(2), raw(2))]);
  const [c, d, e] = await Promise.all([spool.append(envelope(3), big), spool.append(envelope(4), raw(4)), spool.append(envelope(5), big)]);
  expect(b.segment).toBe(a.segment);
  expect(new Set([a.segment, c.segment, e.segment]).size).toBe(3);
  expect([a.segment, c.segment, e.segment]).not.toContain(d.segment);
  for (const place of [c, e]) expect(fs.statSync(path.join(dir, segmentFileName('segment', place.segment))).size).toBeLessThan(big.length + 1024);
  // Small mail fills a segment up to SEGMENT_BYTES and no further than one mail past it.
  const many = await Promise.all(Array.from({ length: 60 }, (_, i) => spool.append(envelope(100 + i), Buffer.alloc(200 * 1024, 0x42))));
  for (const segment of new Set(many.map((p) => p.segment))) expect(fs.statSync(path.join(dir, segmentFileName('segment', segment))).size).toBeLessThan(SEGMENT_BYTES + 201 * 1024);
  expect(new Set(many.map((p) => p.segment)).size).toBeGreaterThanOrEqual(3);
  expect(await spool.read(many[59])).toEqual(Buffer.alloc(200 * 1024, 0x42));
});

it('hands over at once a segment whose write failed when all its earlier mail was stored (else the next start replays it)', async () => {
  const handedOver: number[] = [];
  const spool = new InboundSpool(dir, async () => undefined, async (n) => void handedOver.push(n), log);
  await spool.open();
  const first = await spool.append(envelope(1), raw(1));
  spool.stored(first);
  // The next group's write fails (a disk error; here the segment's descriptor is closed under it).
  fs.closeSync((spool as unknown as { active: { fd: number } }).active.fd);
  await expect(spool.append(envelope(2), raw(2))).rejects.toThrow();
  for (let i = 0; i < 100 && handedOver.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(handedOver).toEqual([first.segment]);
  expect(segments(dir)).toEqual([]);
  expect(await new InboundSpool(dir, async () => undefined, async () => undefined, log).open()).toEqual([]);
});

it('numbers new segments past the floor it is opened with (the highest segment a stored object names), whatever the clock says', async () => {
  const floor = Date.now() + 10 * 365 * 86_400_000;
  const spool = new InboundSpool(dir, async () => undefined, async () => undefined, log);
  await spool.open(floor);
  expect((await spool.append(envelope(1), raw(1))).segment).toBe(floor + 1);
});

it('encodes a record as header, envelope and raw mail, each length and the CRC in the header', () => {
  const [header, env, body] = encodeRecord(envelope(1), raw(1));
  expect(header.subarray(0, 4).toString()).toBe('TMI1');
  expect(header.readUInt32LE(4)).toBe(env.length);
  expect(header.readUInt32LE(8)).toBe(body.length);
  expect(decodeSegment(Buffer.concat([header, env, body])).records[0]).toMatchObject({ envelope: envelope(1), offset: header.length + env.length });
  // The raw's CRC given by the caller (the SMTP stand-in's, made as the data arrived): the same record, unread here.
  expect(Buffer.concat(encodeRecord(envelope(1), raw(1), crc32(raw(1))))).toEqual(Buffer.concat([header, env, body]));
  // A wrong one is a record replay refuses, as a torn write.
  const wrong = encodeRecord(envelope(1), raw(1), crc32(raw(1)) ^ 1);
  expect(decodeSegment(Buffer.concat(wrong)).records).toEqual([]);
});
