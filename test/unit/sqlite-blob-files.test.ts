/**
 * The embedded store's large objects as files (lambdas/store/sqlite-blob-files.ts): where they live, that every way
 * an object goes (delete, a prefix, a replace, the expiry sweep) removes its file, that a crash's leftovers are swept
 * at start and nothing else, that they survive a restart, and that copying or reading one does not take its size in
 * memory (a 38 MB row once went through SQLite whole on each put, get and copy: ten large mails took RSS to 1 GB).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import type { Stores } from '../../lambdas/core/ports';
import { BLOB_FILES_DIR, BlobFiles, FILE_BLOB_MIN_BYTES } from '../../lambdas/store/sqlite-blob-files';
import { DATABASE_FILE } from '../../lambdas/store/sqlite-store';
import { epochSeconds, REMOVAL_GRACE_SECONDS } from '../../lambdas/core/inbox';

let dataDir: string;
let stores: Stores;
const open = () => appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } })).stores;
const files = () => fs.readdirSync(path.join(dataDir, BLOB_FILES_DIR)).sort();
const large = (extra = 0) => randomBytes(FILE_BLOB_MIN_BYTES + extra);

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-blobfiles-'));
  stores = open();
});
afterEach(async () => {
  await stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('keeps a large object as one private file, a small one in its row; a copy is a second name, not a second read', async () => {
  const big = large(1);
  await stores.blobs.put('inboxes/i1/m1/raw.eml', big, 'message/rfc822');
  await stores.blobs.put('inboxes/i1/m1/body.json', '{"text":"small"}', 'application/json');
  expect(files()).toHaveLength(1);
  const [file] = files();
  expect(fs.statSync(path.join(dataDir, BLOB_FILES_DIR, file)).mode & 0o777).toBe(0o600);
  expect(fs.statSync(path.join(dataDir, BLOB_FILES_DIR)).mode & 0o777).toBe(0o700);
  expect(fs.readFileSync(path.join(dataDir, BLOB_FILES_DIR, file)).equals(big)).toBe(true);
  await stores.blobs.copy('inboxes/i1/m1/raw.eml', 'inboxes/i2/m1/raw.eml');
  expect(files()).toHaveLength(2);
  expect(fs.statSync(path.join(dataDir, BLOB_FILES_DIR, files()[0])).nlink).toBe(2); // one inode, two names
  expect((await stores.blobs.get('inboxes/i2/m1/raw.eml'))!.equals(big)).toBe(true);
});

it('removes the file with its object: delete, delete by prefix, replace, and the expiry sweep of an inbox', async () => {
  await stores.blobs.put('inboxes/i1/m1/raw.eml', large(), 'message/rfc822');
  await stores.blobs.put('inboxes/i1/m1/att_1', large(2), 'application/pdf');
  await stores.blobs.put('inboxes/i1/m2/raw.eml', large(3), 'message/rfc822');
  await stores.blobs.put('inboxes/i2/m1/raw.eml', large(4), 'message/rfc822');
  expect(files()).toHaveLength(4);
  await stores.blobs.delete('inboxes/i1/m1/att_1');
  expect(files()).toHaveLength(3);
  expect(await stores.blobs.deletePrefix('inboxes/i1/')).toBe(2);
  expect(files()).toHaveLength(1);
  // Replacing a large object by another, then by a small one: the older files go.
  await stores.blobs.put('inboxes/i2/m1/raw.eml', large(5), 'message/rfc822');
  expect(files()).toHaveLength(1);
  await stores.blobs.put('inboxes/i2/m1/raw.eml', 'small', 'message/rfc822');
  expect(files()).toEqual([]);

  // TTL: the sweep of an expired inbox deletes its prefix, and with it its files.
  const { inboxRecord } = await import('../contract/contract');
  const { sweepExpired } = await import('../../lambdas/usecases/inboxes');
  const expired = inboxRecord({ expires_at_epoch: Math.floor(Date.now() / 1000) - REMOVAL_GRACE_SECONDS - 10 });
  await stores.inboxes.createInbox(expired, epochSeconds(Date.now()));
  await stores.blobs.put(`inboxes/${expired.id}/m/raw.eml`, large(6), 'message/rfc822');
  expect(files()).toHaveLength(1);
  const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
  try {
    expect(await sweepExpired(ctx)).toBe(1);
  } finally {
    await ctx.stores.close();
  }
  expect(files()).toEqual([]);
});

it('leaves no file behind when the row cannot be written, and sweeps at start only what no row names', async () => {
  // A row that cannot commit (a trigger refuses it, from another connection as the keys CLI would hold one).
  const Driver = require('libsql') as new (file: string) => { exec(sql: string): void; close(): void };
  const other = new Driver(path.join(dataDir, DATABASE_FILE));
  other.exec(`CREATE TRIGGER refuse_x BEFORE INSERT ON blobs WHEN NEW.key = 'inboxes/x/refused' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
  other.close();
  await expect(stores.blobs.put('inboxes/x/refused', large(), 'message/rfc822')).rejects.toThrow(/refused/);
  expect(files()).toEqual([]);

  const kept = large(7);
  await stores.blobs.put('inboxes/i1/m1/raw.eml', kept, 'message/rfc822');
  // What a crash leaves: a file written whose row never committed, and one whose row's delete committed first.
  fs.writeFileSync(path.join(dataDir, BLOB_FILES_DIR, randomBytes(16).toString('hex')), 'orphan');
  fs.writeFileSync(path.join(dataDir, BLOB_FILES_DIR, randomBytes(16).toString('hex')), randomBytes(1000));
  fs.writeFileSync(path.join(dataDir, BLOB_FILES_DIR, 'README'), 'not ours'); // not a name the store makes: left alone
  expect(files()).toHaveLength(4);

  // The keys CLI opens the same folder while the stack runs: opening never sweeps.
  await stores.close();
  stores = open();
  expect(files()).toHaveLength(4);
  expect(stores.sweepOrphanFiles!()).toBe(2);
  expect(files()).toHaveLength(2);
  expect(files()).toContain('README');
  // The object survived the restart and the sweep.
  expect((await stores.blobs.get('inboxes/i1/m1/raw.eml'))!.equals(kept)).toBe(true);
});

it('streams a large object from its file, whole, even when it is deleted while being read', async () => {
  const big = large(FILE_BLOB_MIN_BYTES * 8);
  await stores.blobs.put('inboxes/i1/m1/att_1', big, 'application/pdf');
  const opened = await stores.downloads!.openStream('inboxes/i1/m1/att_1');
  expect(opened!.size).toBe(big.length);
  await stores.blobs.deletePrefix('inboxes/i1/');
  expect(files()).toEqual([]);
  expect((await buffer(opened!.body)).equals(big)).toBe(true);
  expect(await stores.downloads!.openStream('inboxes/i1/m1/att_1')).toBeNull();
});

/** The process's peak resident memory (kB) since the last reset: Linux's VmHWM, reset by writing 5 to clear_refs. */
const peakKb = () => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]);
const residentKb = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]);
const canMeasure = (() => {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
})();

(canMeasure ? it : it.skip)('copies a 38 MB object without holding its size in memory (peak RSS, Linux), and streams it in chunks', async () => {
  const size = 38 * 1024 * 1024;
  let big: Buffer | null = randomBytes(size);
  await stores.blobs.put('inboxes/i1/m1/raw.eml', big, 'message/rfc822');
  big = null;
  global.gc?.();
  const grew = async (work: () => Promise<unknown>) => {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    const before = residentKb();
    await work();
    return (peakKb() - before) * 1024;
  };
  const copied = await grew(() => stores.blobs.copy('inboxes/i1/m1/raw.eml', 'inboxes/i2/m1/raw.eml'));
  expect(copied).toBeLessThan(size / 4);
  // Streamed: its first chunk comes when a small part of the file has been read, and the rest as it is taken.
  const opened = await stores.downloads!.openStream('inboxes/i2/m1/raw.eml');
  const chunks = opened!.body[Symbol.asyncIterator]();
  const first = (await chunks.next()).value as Buffer;
  expect((opened!.body as fs.ReadStream).bytesRead).toBeLessThan(size / 100);
  let total = first.length;
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) total += (next.value as Buffer).length;
  expect(total).toBe(size);
});

it('frees the files under a prefix ahead of their rows for a delete on a full disk: the objects then read as gone', async () => {
  await stores.blobs.put('inboxes/i1/m1/raw.eml', large(), 'message/rfc822');
  await stores.blobs.put('inboxes/i1/m1/body.json', '{}', 'application/json');
  await stores.blobs.put('inboxes/i2/m1/raw.eml', large(1), 'message/rfc822');
  expect(await stores.releaseObjectFiles!('inboxes/i1/')).toBe(1);
  expect(files()).toHaveLength(1);
  expect(await stores.blobs.get('inboxes/i1/m1/raw.eml')).toBeNull();
  expect(await stores.downloads!.openStream('inboxes/i1/m1/raw.eml')).toBeNull();
  expect((await stores.blobs.get('inboxes/i1/m1/body.json'))!.toString()).toBe('{}');
  expect(await stores.blobs.deletePrefix('inboxes/i1/')).toBe(2);
  expect(await stores.blobs.get('inboxes/i2/m1/raw.eml')).not.toBeNull();
});

describe('a blob file that cannot be removed', () => {
  it('is told to the warn function the composition root gives (the app logger), not printed to the console', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-blob-files-'));
    const told: string[] = [];
    const console = jest.spyOn(global.console, 'error').mockImplementation();
    try {
      const files = new BlobFiles(dir, (message) => told.push(message));
      const name = 'ab'.repeat(16);
      fs.mkdirSync(files.path(name)); // unlink of a folder fails (EISDIR), as a file the disk cannot free would
      await files.remove([name, 'cd'.repeat(16)]); // the second is already gone: fine, not told
      expect(told).toEqual([expect.stringMatching(new RegExp(`^\\[blobs\\] could not remove ${name}: `))]);
      expect(console).not.toHaveBeenCalled();
    } finally {
      console.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
