/**
 * The free-space headroom's RCPT check (local/free-space.ts roomForRecipient): it reuses the filesystem's last answer
 * for under a second, less every byte claimed since, and asks again before it refuses; a claim (what a 250 rests on)
 * always asks.
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
  jest.spyOn(Date, 'now').mockImplementation(() => nowMs);
  const real = fs.statfsSync(dataDir);
  statfs = jest.spyOn(fs, 'statfsSync').mockImplementation(() => ({ ...real, bsize: 1, bavail: freeBytes }) as fs.StatsFs);
});
afterEach(() => {
  jest.restoreAllMocks();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it("answers RCPTs from the filesystem's last answer for under a second; a claim always asks", () => {
  const space = new FreeSpace(dataDir, 10 * MB);
  expect(space.roomForRecipient()).toBe(true);
  expect(statfs).toHaveBeenCalledTimes(1);
  for (let i = 0; i < 5; i++) expect(space.roomForRecipient()).toBe(true);
  expect(statfs).toHaveBeenCalledTimes(1);
  expect(space.claim(MB)).not.toBeNull();
  expect(statfs).toHaveBeenCalledTimes(2);
  nowMs += 1_000;
  expect(space.roomForRecipient()).toBe(true);
  expect(statfs).toHaveBeenCalledTimes(3);
});

it('takes off what was promised at the last answer and every byte claimed since, and asks again before it refuses', () => {
  const space = new FreeSpace(dataDir, 10 * MB);
  space.claim(50 * MB)!.release(); // its ingest ended
  freeBytes = 50 * MB; // having written 50 MB, which the answer the claim got does not show
  // 100 MB then, less the 50 MB claimed since: room, and nothing asked.
  expect(space.roomForRecipient()).toBe(true);
  expect(statfs).toHaveBeenCalledTimes(1);
  const held = space.claim(30 * MB)!; // asks: 50 MB, room for 30 MB above the headroom
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
