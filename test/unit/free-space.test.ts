/**
 * The free-space headroom's checks of mail (local/free-space.ts): an RCPT's reuses the filesystem's last answer for
 * under a second, a claim (what a 250 rests on) for under 100 ms while no DATA is being written to the SMTP spool,
 * both less every byte claimed since, and both ask again before they refuse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FreeSpace } from '../../local/free-space';

const MB = 1024 * 1024;
let dataDir: string;
let freeBytes: number;
let statfs: jest.SpyInstance;
let nowMs: number;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-free-space-'));
  freeBytes = 100 * MB;
  nowMs = 1_000_000;
  jest.spyOn(performance, 'now').mockImplementation(() => nowMs);
  const real = fs.statfsSync(dataDir);
  statfs = jest.spyOn(fs, 'statfsSync').mockImplementation(() => ({ ...real, bsize: 1, bavail: freeBytes }) as fs.StatsFs);
});
afterEach(() => {
  jest.restoreAllMocks();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it("answers RCPTs from the filesystem's last answer for under a second, claims for under 100 ms", () => {
  const space = new FreeSpace(dataDir, 10 * MB);
  expect(space.roomForRecipient()).toBe(true);
  expect(statfs).toHaveBeenCalledTimes(1);
  for (let i = 0; i < 5; i++) expect(space.roomForRecipient()).toBe(true);
  expect(space.claim(MB)).not.toBeNull();
  expect(statfs).toHaveBeenCalledTimes(1);
  nowMs += 100;
  expect(space.claim(MB)).not.toBeNull(); // 100 ms old: a claim asks
  expect(statfs).toHaveBeenCalledTimes(2);
  expect(space.roomForRecipient()).toBe(true);
  expect(statfs).toHaveBeenCalledTimes(2);
  nowMs += 1_000;
  expect(space.roomForRecipient()).toBe(true);
  expect(statfs).toHaveBeenCalledTimes(3);
});

it("reads the store's free pages with the filesystem, and asks both again before it refuses a claim", () => {
  let reclaimable = 20 * MB;
  const reads = jest.fn(() => reclaimable);
  const space = new FreeSpace(dataDir, 10 * MB, reads);
  const asked = () => [statfs.mock.calls.length, reads.mock.calls.length];
  freeBytes = 5 * MB;
  expect(space.claim(5 * MB)).not.toBeNull(); // asks: 5 + 20 free pages, less 5, leaves the 10 MB headroom
  expect(space.claim(5 * MB)).not.toBeNull(); // on that answer: 25 less the 5 claimed since, less 5
  expect(asked()).toEqual([1, 1]);
  reclaimable = 30 * MB; // deletes freed pages; on the old answer the next claim would be refused, so it asks
  expect(space.claim(6 * MB)).not.toBeNull(); // 5 + 30 - 10 promised - 6 = 19
  expect(asked()).toEqual([2, 2]);
  reclaimable = 0;
  expect(space.claim(MB)).not.toBeNull(); // on that answer: 35 - 10 promised then - 6 claimed since - 1
  expect(asked()).toEqual([2, 2]);
  nowMs += 100;
  expect(space.claim(MB)).toBeNull(); // asks: 5 + 0 - 17 promised
  expect(asked()).toEqual([3, 3]);
});

it('takes off what was promised at the last answer and every byte claimed since, and asks again before it refuses', () => {
  const space = new FreeSpace(dataDir, 10 * MB);
  space.claim(50 * MB)!.release(); // its ingest ended
  freeBytes = 50 * MB; // having written 50 MB, which the answer the claim got does not show
  // 100 MB then, less the 50 MB claimed since: room, and nothing asked.
  expect(space.roomForRecipient()).toBe(true);
  expect(statfs).toHaveBeenCalledTimes(1);
  nowMs += 100;
  const held = space.claim(30 * MB)!; // asks (the answer is 100 ms old): 50 MB, room for 30 MB above the headroom
  expect(statfs).toHaveBeenCalledTimes(2);
  expect(space.roomForRecipient()).toBe(true); // 50 less the 30 claimed since
  expect(statfs).toHaveBeenCalledTimes(2);
  freeBytes = 35 * MB; // the held mail's ingest has written half of it
  expect(space.claim(15 * MB)).toBeNull(); // asks: 35 less the 30 promised, less 15, is under the headroom
  expect(statfs).toHaveBeenCalledTimes(3);
  // That answer less the 30 MB still promised is under the headroom: asked again, and refused on what it says now.
  expect(space.roomForRecipient()).toBe(false);
  expect(statfs).toHaveBeenCalledTimes(4);
  held.release();
  freeBytes = 20 * MB;
  // On the last answer alone (35 MB, 30 promised) it would refuse; asked again, there is room: never refused on an old answer.
  expect(space.roomForRecipient()).toBe(true);
  expect(statfs).toHaveBeenCalledTimes(5);
});

it('asks at every claim while a DATA is being written to the SMTP spool (bytes the last answer does not count)', () => {
  const space = new FreeSpace(dataDir, 10 * MB);
  expect(space.claim(MB)).not.toBeNull();
  expect(statfs).toHaveBeenCalledTimes(1);
  const spooled = space.spoolingData(); // another session's 30 MB DATA goes to a spool file
  freeBytes -= 30 * MB;
  expect(space.claim(MB)).not.toBeNull(); // asks: 70 MB
  expect(space.claim(MB)).not.toBeNull();
  expect(statfs).toHaveBeenCalledTimes(3);
  freeBytes = 12 * MB;
  expect(space.claim(MB)).toBeNull(); // asks: 12 less the 3 promised, less 1, is under the headroom
  spooled();
  spooled(); // a second call changes nothing
  freeBytes = 100 * MB;
  expect(space.claim(MB)).not.toBeNull(); // the last answer would refuse: asks again
  expect(statfs).toHaveBeenCalledTimes(5);
  expect(space.claim(MB)).not.toBeNull(); // on that answer again
  expect(statfs).toHaveBeenCalledTimes(5);
});
