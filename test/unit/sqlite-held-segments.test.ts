/**
 * Raw mail kept where the inbound spool put it (lambdas/store/sqlite-held-segments.ts), on the real spool and the
 * real embedded store: a held object reads back byte for byte (whole, as a range, as a stream) before and after the
 * spool hands its segment over; copies name the same bytes; the segment file stays while any row names it and goes
 * with the last one, whichever of the hand-over and the last delete comes last; a start sweeps what no row names;
 * a row whose segment is gone (a power loss that undid its delete) reads as gone, never as other bytes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import { heldBytes, type HeldPlace, type Stores } from '../../lambdas/core/ports';
import { inboundSpoolDir, segmentFileName } from '../../lambdas/layout/inbound-spool-files';
import { InboundSpool, OWN_SEGMENT_BYTES, type SpoolPlace } from '../../local/inbound-spool';
import { BLOB_FILES_DIR, FILE_BLOB_MIN_BYTES } from '../../lambdas/store/sqlite-blob-files';

let dataDir: string;
let stores: Stores;
let spool: InboundSpool;
const handedOver: number[] = [];
const open = () => appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } })).stores;
const spoolFiles = () => fs.readdirSync(inboundSpoolDir(dataDir)).sort();
const envelope = (n: number) => ({ mailId: `mail-${n}`, recipients: ['a@tempmail.local'], envelopeFrom: 'b@example.com', receivedAt: new Date().toISOString() });
const raw = (n: number) => Buffer.from(`Subject: held ${n}\r\n\r\n${'body '.repeat(50 + n)}\r\n`);
const held = (n: number, place: SpoolPlace) => heldBytes(raw(n), place);
/** Base64 kept where it lies, `bytes` what it decodes to (read only if the store writes them after all). */
const held64 = (bytes: Buffer, place: HeldPlace, read: () => void = () => undefined) => ({ held: place, size: bytes.length, bytes: () => (read(), bytes) });

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

beforeEach(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-held-'));
  stores = open();
  handedOver.length = 0;
  spool = new InboundSpool(inboundSpoolDir(dataDir), () => stores.sync!(), async (n) => (handedOver.push(n), stores.releaseSpoolSegment!(n)), () => undefined);
  await spool.open();
});
afterEach(async () => {
  await stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('keeps a held raw mail in its segment, not in the database, and reads it back whole, as a range and as a stream', async () => {
  const places = await Promise.all([0, 1, 2].map((n) => spool.append(envelope(n), raw(n))));
  for (const n of [0, 1, 2]) await stores.blobs.put(`inboxes/i1/m${n}/raw.eml`, held(n, places[n]), 'message/rfc822');
  const read = async () => {
    for (const n of [0, 1, 2]) expect(await stores.blobs.get(`inboxes/i1/m${n}/raw.eml`)).toEqual(raw(n));
    const whole = await stores.downloads!.openStream(`inboxes/i1/m1/raw.eml`);
    expect(whole!.size).toBe(raw(1).length);
    expect(await buffer(whole!.body)).toEqual(raw(1));
    const part = await stores.downloads!.openStream(`inboxes/i1/m1/raw.eml`, () => ({ start: 2, end: 12 }));
    expect((await buffer(part!.body)).toString()).toBe(raw(1).subarray(2, 13).toString());
  };
  await read();
  // The database holds no copy of the bytes.
  expect(fs.readFileSync(path.join(dataDir, 'tempmail.db-wal')).includes(raw(2))).toBe(false);
  // Handed over (renamed stored-): read the same.
  for (const place of places) spool.stored(place);
  await until(() => handedOver.length === 1);
  expect(spoolFiles()).toEqual([segmentFileName('stored', places[0].segment)]);
  await read();
});

it('keeps an attachment as the base64 in the held mail, decoded when read: whole, as a range, and through a copy', async () => {
  const content = Buffer.from(Array.from({ length: 9000 }, (_, i) => (i * 7) % 256));
  const lines = content.toString('base64').replace(/.{76}/g, '$&\r\n');
  const mail = Buffer.from(`Subject: attached\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n${lines}\r\n`);
  const place = await spool.append(envelope(0), mail);
  const start = mail.indexOf('\r\n\r\n') + 4;
  let read = 0;
  const body = held64(content, { segment: place.segment, offset: place.offset + start, length: mail.length - start, encoding: 'base64' }, () => read++);
  await stores.blobs.put('inboxes/i1/m0/att_1', body, 'application/octet-stream');
  expect(read).toBe(0);
  expect(await stores.blobs.get('inboxes/i1/m0/att_1')).toEqual(content);
  const part = await stores.downloads!.openStream('inboxes/i1/m0/att_1', () => ({ start: 100, end: 4099 }));
  expect(part!.size).toBe(content.length);
  expect(await buffer(part!.body)).toEqual(content.subarray(100, 4100));
  await stores.blobs.copy('inboxes/i1/m0/att_1', 'inboxes/i2/m0/att_1');
  expect(await stores.blobs.get('inboxes/i2/m0/att_1')).toEqual(content);
  expect(fs.readFileSync(path.join(dataDir, 'tempmail.db-wal')).includes(content.subarray(0, 64))).toBe(false);
});

it('writes a held attachment that decodes to 256 KB or more as a file (decoding it at each read would cost a file), a smaller one not', async () => {
  const large = Buffer.alloc(FILE_BLOB_MIN_BYTES, 0x5a);
  const mail = Buffer.from(`Subject: big\r\n\r\n${large.toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n`);
  const place = await spool.append(envelope(0), mail);
  const start = mail.indexOf('\r\n\r\n') + 4;
  const span = { segment: place.segment, offset: place.offset + start, length: mail.length - start, encoding: 'base64' as const };
  await stores.blobs.put('inboxes/i1/m0/att_1', held64(large, span), 'application/octet-stream');
  expect(fs.readdirSync(path.join(dataDir, BLOB_FILES_DIR))).toHaveLength(1);
  // Its first 40 lines of 76 characters: 2,280 bytes, kept where they lie.
  let read = 0;
  await stores.blobs.put('inboxes/i1/m0/att_2', held64(large.subarray(0, 2280), { ...span, length: 40 * 78 }, () => read++), 'application/octet-stream');
  // Kept as its base64: its bytes were never asked for (an attachment is not decoded at ingest).
  expect(read).toBe(0);
  expect(fs.readdirSync(path.join(dataDir, BLOB_FILES_DIR))).toHaveLength(1);
  expect(await stores.blobs.get('inboxes/i1/m0/att_1')).toEqual(large);
  expect(await stores.blobs.get('inboxes/i1/m0/att_2')).toEqual(large.subarray(0, 2280));
});

it('frees on a full disk the handed-over segments only the objects under a prefix name, never one another inbox shares', async () => {
  const shared = await Promise.all([0, 1].map((n) => spool.append(envelope(n), raw(n))));
  await stores.blobs.put('inboxes/i1/m0/raw.eml', held(0, shared[0]), 'message/rfc822');
  await stores.blobs.put('inboxes/i2/m1/raw.eml', held(1, shared[1]), 'message/rfc822');
  for (const place of shared) spool.stored(place);
  await until(() => handedOver.length === 1);
  const own = await spool.append(envelope(2), Buffer.alloc(OWN_SEGMENT_BYTES, 0x61));
  await stores.blobs.put('inboxes/i1/m2/raw.eml', heldBytes(Buffer.alloc(OWN_SEGMENT_BYTES, 0x61), own), 'message/rfc822');
  spool.stored(own);
  await until(() => handedOver.length === 2);
  expect(await stores.releaseObjectFiles!('inboxes/i1/')).toBe(1);
  expect(spoolFiles()).toEqual([segmentFileName('stored', shared[0].segment)]);
  expect(await stores.blobs.get('inboxes/i1/m2/raw.eml')).toBeNull();
  expect(await stores.blobs.get('inboxes/i1/m0/raw.eml')).toEqual(raw(0));
  expect(await stores.blobs.get('inboxes/i2/m1/raw.eml')).toEqual(raw(1));
  expect(await stores.blobs.deletePrefix('inboxes/i1/')).toBe(2);
  expect(await stores.blobs.deletePrefix('inboxes/i2/')).toBe(1);
  expect(spoolFiles()).toEqual([]);
});

it('removes a handed-over segment with the last object naming it, copies included, and never before', async () => {
  const places = await Promise.all([0, 1].map((n) => spool.append(envelope(n), raw(n))));
  await stores.blobs.put('inboxes/i1/m0/raw.eml', held(0, places[0]), 'message/rfc822');
  await stores.blobs.put('inboxes/i2/m1/raw.eml', held(1, places[1]), 'message/rfc822');
  await stores.blobs.copy('inboxes/i2/m1/raw.eml', 'inboxes/i3/m1/raw.eml');
  // Deleted before the hand-over: the spool's file is its own until then.
  await stores.blobs.delete('inboxes/i1/m0/raw.eml');
  expect(spoolFiles()).toEqual([segmentFileName('segment', places[0].segment)]);
  for (const place of places) spool.stored(place);
  await until(() => handedOver.length === 1);
  expect(spoolFiles()).toEqual([segmentFileName('stored', places[0].segment)]);
  expect(await stores.blobs.deletePrefix('inboxes/i2/')).toBe(1);
  expect(spoolFiles()).toHaveLength(1);
  expect(await stores.blobs.get('inboxes/i3/m1/raw.eml')).toEqual(raw(1));
  // Replaced by bytes of its own: the last name goes, and the segment with it.
  await stores.blobs.put('inboxes/i3/m1/raw.eml', raw(7), 'message/rfc822');
  expect(spoolFiles()).toEqual([]);
  expect(await stores.blobs.get('inboxes/i3/m1/raw.eml')).toEqual(raw(7));
});

it('removes a handed-over segment at once when its objects are all gone before it, and sweeps at start what no row names', async () => {
  const place = await spool.append(envelope(0), raw(0));
  await stores.blobs.put('inboxes/i1/m0/raw.eml', held(0, place), 'message/rfc822');
  await stores.blobs.delete('inboxes/i1/m0/raw.eml');
  spool.stored(place);
  await until(() => handedOver.length === 1);
  await until(() => spoolFiles().length === 0);

  // A crash between a delete's commit and the file's removal leaves a stored- file no row names: the start sweeps it.
  const kept = await spool.append(envelope(1), raw(1));
  await stores.blobs.put('inboxes/i1/m1/raw.eml', held(1, kept), 'message/rfc822');
  spool.stored(kept);
  await until(() => handedOver.length === 2);
  fs.writeFileSync(path.join(inboundSpoolDir(dataDir), segmentFileName('stored', 42)), 'left by a crash');
  expect(stores.sweepOrphanFiles!()).toBe(1);
  expect(spoolFiles()).toEqual([segmentFileName('stored', kept.segment)]);
  expect(await stores.blobs.get('inboxes/i1/m1/raw.eml')).toEqual(raw(1));
});

it('reads an object whose segment is gone as gone (a power loss that undid its delete), never as other bytes', async () => {
  const place = await spool.append(envelope(0), raw(0));
  await stores.blobs.put('inboxes/i1/m0/raw.eml', held(0, place), 'message/rfc822');
  fs.rmSync(path.join(inboundSpoolDir(dataDir), segmentFileName('segment', place.segment)));
  expect(await stores.blobs.get('inboxes/i1/m0/raw.eml')).toBeNull();
  expect(await stores.downloads!.openStream('inboxes/i1/m0/raw.eml')).toBeNull();
  // After the restart that follows, the next segment is numbered past every earlier one, gone or not, so the row can
  // never name another mail's bytes.
  const restarted = new InboundSpool(inboundSpoolDir(dataDir), async () => undefined, async () => undefined, () => undefined);
  expect(await restarted.open()).toEqual([]);
  expect((await restarted.append(envelope(1), raw(1))).segment).toBeGreaterThan(place.segment);
  expect(await stores.blobs.get('inboxes/i1/m0/raw.eml')).toBeNull();
});
