/**
 * The embedded form's inbound spool: the durable queue a mail enters before its 250 (standing in for SES's S3
 * action). Mail is appended to segment files in the data folder; the appends that arrive while one is being written
 * go together as the next group, written with one `writev` and made durable with one `fdatasync` (and, for a new
 * segment, one fsync of the folder), after which every mail of the group may get its 250. Nothing is copied or
 * deleted per mail. A stored message's raw mail stays where the spool put it (the embedded store names the segment
 * instead of writing the bytes again: lambdas/store/sqlite-held-segments.ts): once every mail of a segment is stored
 * and the store has made that durable (Stores.sync), the segment is renamed from `segment-<n>` to `stored-<n>` and
 * handed over to the store, which removes it when no message keeps its raw mail there. A restart replays the records
 * of the `segment-` files still there (ingest is idempotent: a mail stored already is a duplicate, not a second
 * message); file names: lambdas/layout/inbound-spool-files.ts.
 *
 * A record: `TMI1`, the envelope's length, the raw mail's length, a CRC-32 of both (4 bytes each, little-endian),
 * the envelope as JSON, the raw mail. A record cut short or failing its CRC can only be the tail of a group whose
 * fdatasync never returned, so no mail in it got a 250: replay stops there and logs what it skipped.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { parseSegmentFileName, segmentFileName } from '../lambdas/layout/inbound-spool-files';
import type { Envelope } from '../lambdas/usecases/inbound';
import { crc32Combine } from './crc32';

const MAGIC = 0x31494d54; // 'TMI1' little-endian
const HEADER_BYTES = 16;
/**
 * A segment takes no more records past this size: a restart replays at most about this much, and a stored message
 * keeps at most about this much on disk beside its own bytes (its segment goes with the last message it holds).
 */
export const SEGMENT_BYTES = 4 * 1024 * 1024;
/** A mail at least this large gets a segment of its own: a small message beside it would keep its bytes on disk. */
export const OWN_SEGMENT_BYTES = 1024 * 1024;
/** A segment all of whose mail is stored is closed and removed after this long without a new append. */
const IDLE_SEAL_MS = 250;
const segmentName = (n: number) => segmentFileName('segment', n);

const writev = promisify(fs.writev);
const fdatasync = promisify(fs.fdatasync);

/** Where a record's raw mail lies, to read it again (a retry after the first attempt dropped it from memory). */
export interface SpoolPlace {
  segment: number;
  offset: number;
  length: number;
}

export interface SpooledMail {
  envelope: Envelope;
  raw: Buffer;
  place: SpoolPlace;
}

interface Segment {
  number: number;
  fd?: number;
  size: number;
  /** Records appended and not yet stored. */
  pending: number;
  /** No more appends: full, failed, or emptied while idle. */
  sealed: boolean;
  /** Its folder entry not yet fsynced. */
  fresh: boolean;
}

interface Append {
  buffers: Buffer[];
  bytes: number;
  rawOffset: number;
  rawLength: number;
  resolve: (place: SpoolPlace) => void;
  reject: (error: unknown) => void;
}

/** A record's buffers. `rawCrc`: the raw's CRC-32 when the caller has it (then the raw is not read here). */
export function encodeRecord(envelope: Envelope, raw: Buffer, rawCrc = crc32(raw)): Buffer[] {
  const env = Buffer.from(JSON.stringify(envelope));
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(env.length, 4);
  header.writeUInt32LE(raw.length, 8);
  header.writeUInt32LE(crc32Combine(crc32(env), rawCrc, raw.length), 12);
  return [header, env, raw];
}

/** The records of one segment file in order, and the bytes past the last whole one (a torn tail), if any. */
export function decodeSegment(file: Buffer): { records: { envelope: Envelope; raw: Buffer; offset: number }[]; tornBytes: number } {
  const records: { envelope: Envelope; raw: Buffer; offset: number }[] = [];
  let at = 0;
  while (at + HEADER_BYTES <= file.length) {
    if (file.readUInt32LE(at) !== MAGIC) break;
    const envLength = file.readUInt32LE(at + 4);
    const rawLength = file.readUInt32LE(at + 8);
    const end = at + HEADER_BYTES + envLength + rawLength;
    if (end > file.length) break;
    const env = file.subarray(at + HEADER_BYTES, at + HEADER_BYTES + envLength);
    const raw = file.subarray(at + HEADER_BYTES + envLength, end);
    if (crc32(raw, crc32(env)) !== file.readUInt32LE(at + 12)) break;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(env.toString('utf8')) as Envelope;
    } catch {
      break;
    }
    records.push({ envelope, raw: Buffer.from(raw), offset: at + HEADER_BYTES + envLength });
    at = end;
  }
  return { records, tornBytes: file.length - at };
}

export class InboundSpool {
  private readonly segments = new Map<number, Segment>();
  private active?: Segment;
  private next = 1;
  private queue: Append[] = [];
  private writing = false;

  /**
   * `settle`: resolves once everything the store has acknowledged is durable (use case settleInbound); a segment is
   * handed over only after it. `handOver`: a segment renamed `stored-` (use case spoolSegmentStored). `log`: what
   * replay skipped, and renames that failed.
   */
  constructor(
    readonly dir: string,
    private readonly settle: () => Promise<void>,
    private readonly handOver: (segment: number) => Promise<void>,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Reads the segments a previous run left: their mail, to ingest again (oldest first). Call once, before appending.
   * `after`: new segments are numbered past it (the highest segment a stored object names: use case spoolSegmentFloor).
   */
  async open(after = 0): Promise<SpooledMail[]> {
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    this.next = Math.max(this.next, after + 1);
    const files = (await fsp.readdir(this.dir)).map((name) => ({ name, parsed: parseSegmentFileName(name) }));
    const numbers: number[] = [];
    for (const { name, parsed } of files) {
      if (!parsed) continue;
      this.next = Math.max(this.next, parsed.number + 1);
      // Named by an older version (10 digits): renamed as the store reads it.
      if (!parsed.canonical) await fsp.rename(path.join(this.dir, name), path.join(this.dir, segmentFileName(parsed.state, parsed.number)));
      if (parsed.state === 'segment') numbers.push(parsed.number);
    }
    numbers.sort((a, b) => a - b);
    const found: SpooledMail[] = [];
    for (const number of numbers) {
      const { records, tornBytes } = decodeSegment(await fsp.readFile(path.join(this.dir, segmentName(number))));
      if (tornBytes > 0) this.log(`[smtp] spool ${segmentName(number)}: ${tornBytes} bytes after its last whole record skipped (a write cut short; no mail in it was answered 250)`);
      const segment: Segment = { number, size: 0, pending: records.length, sealed: true, fresh: false };
      this.segments.set(number, segment);
      for (const r of records) found.push({ envelope: r.envelope, raw: r.raw, place: { segment: number, offset: r.offset, length: r.raw.length } });
      if (records.length === 0) this.release(segment);
    }
    return found;
  }

  /** Appends the mail; resolves once it is durable (the 250 may follow), with where it lies. */
  append(envelope: Envelope, raw: Buffer, rawCrc?: number): Promise<SpoolPlace> {
    const buffers = encodeRecord(envelope, raw, rawCrc);
    return new Promise<SpoolPlace>((resolve, reject) => {
      this.queue.push({ buffers, bytes: buffers[0].length + buffers[1].length + raw.length, rawOffset: buffers[0].length + buffers[1].length, rawLength: raw.length, resolve, reject });
      if (!this.writing) void this.writeGroups();
    });
  }

  /** The raw mail of a record, read again from its segment. */
  async read(place: SpoolPlace): Promise<Buffer> {
    const handle = await fsp.open(path.join(this.dir, segmentName(place.segment)), 'r');
    try {
      const raw = Buffer.allocUnsafe(place.length);
      const { bytesRead } = await handle.read(raw, 0, place.length, place.offset);
      if (bytesRead !== place.length) throw new Error(`spool ${segmentName(place.segment)} is shorter than its record`);
      return raw;
    } finally {
      await handle.close();
    }
  }

  /** One record of the segment is stored (in every inbox it names, or dropped for good): it need not be replayed. */
  stored(place: SpoolPlace): void {
    const segment = this.segments.get(place.segment);
    if (!segment) return;
    segment.pending--;
    if (segment.pending > 0) return;
    if (segment.sealed) this.release(segment);
    // Emptied while it takes appends: closed and removed once no append has come for a moment (a new file per
    // emptied segment would cost an open, a folder fsync and a removal every few mails).
    else this.sealWhenIdle();
  }

  private idleTimer?: NodeJS.Timeout;
  private sealWhenIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const idle = this.active;
      if (!idle || idle.pending > 0 || this.writing || this.queue.length > 0) return;
      this.seal(idle);
      this.release(idle);
    }, IDLE_SEAL_MS);
    this.idleTimer.unref();
  }

  private async writeGroups(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      let group: Append[] = [];
      let segment: Segment | undefined;
      try {
        const alone = this.queue[0].bytes >= OWN_SEGMENT_BYTES;
        if (alone && this.active && this.active.size > 0) this.close(this.active);
        segment = await this.openSegment();
        group = this.nextGroup(segment, alone);
        const start = segment.size;
        await writeAll(segment.fd!, group.flatMap((a) => a.buffers), start);
        await fdatasync(segment.fd!);
        if (segment.fresh) {
          await fsyncFolder(this.dir);
          segment.fresh = false;
        }
        let at = start;
        for (const a of group) {
          segment.pending++;
          a.resolve({ segment: segment.number, offset: at + a.rawOffset, length: a.rawLength });
          at += a.bytes;
        }
        segment.size = at;
        if (alone || segment.size >= SEGMENT_BYTES) this.seal(segment);
      } catch (error) {
        // Its tail may hold part of this group: nothing more goes after it, so replay never stops before good records.
        // With all its earlier mail stored it is handed over at once (else no stored() call would ever do it, and
        // the next start would replay mail stored, and maybe deleted, since); this group's mail got no 250.
        if (segment) this.close(segment);
        // No segment to write to: every append waiting fails (its sender gets a 451 and sends it again).
        if (group.length === 0) group = this.queue.splice(0);
        for (const a of group) a.reject(error);
      }
    }
    this.writing = false;
    if (this.active && this.active.pending === 0 && this.active.size > 0) this.sealWhenIdle();
  }

  /**
   * The appends the next write takes from the queue: a large mail alone; else the small ones waiting, up to the first
   * large one and to what fills the segment (at least one).
   */
  private nextGroup(segment: Segment, alone: boolean): Append[] {
    let count = 1;
    let bytes = segment.size + this.queue[0].bytes;
    if (!alone) {
      for (; count < this.queue.length; count++) {
        const next = this.queue[count];
        if (next.bytes >= OWN_SEGMENT_BYTES || bytes + next.bytes > SEGMENT_BYTES) break;
        bytes += next.bytes;
      }
    }
    return this.queue.splice(0, count);
  }

  /** Takes no more appends; handed over at once when all its mail is stored already. */
  private close(segment: Segment): void {
    this.seal(segment);
    if (segment.pending === 0) this.release(segment);
  }

  private async openSegment(): Promise<Segment> {
    if (this.active && !this.active.sealed) return this.active;
    // Never a number used before, even one whose files are all gone (a row may outlive its segment after a power loss):
    // past every file found and every segment a row names (open), and at least the millisecond it is opened at.
    const number = Math.max(this.next, Date.now());
    this.next = number + 1;
    const fd = await new Promise<number>((resolve, reject) => fs.open(path.join(this.dir, segmentName(number)), 'wx', 0o600, (e, f) => (e ? reject(e) : resolve(f))));
    const segment: Segment = { number, fd, size: 0, pending: 0, sealed: false, fresh: true };
    this.segments.set(number, segment);
    this.active = segment;
    return segment;
  }

  private seal(segment: Segment): void {
    segment.sealed = true;
    if (this.active === segment) this.active = undefined;
    if (segment.fd !== undefined) {
      fs.close(segment.fd, () => undefined);
      segment.fd = undefined;
    }
  }

  /**
   * Hands over a sealed segment none of whose records is pending, once what ingest stored from it is durable: renamed
   * `stored-`, it is never replayed, and the store removes it when no message keeps its raw mail there.
   */
  private release(segment: Segment): void {
    this.segments.delete(segment.number);
    const { number } = segment;
    this.settle()
      .then(() => fsp.rename(path.join(this.dir, segmentName(number)), path.join(this.dir, segmentFileName('stored', number))))
      .then(
        () => this.handOver(number),
        // Left in place, it is replayed at the next start: duplicates, never a loss.
        (error: Error) => this.log(`[smtp] spool ${segmentName(number)} not handed over (${error.message}); replayed at the next start`),
      )
      .catch((error: Error) => this.log(`[smtp] spool ${segmentFileName('stored', number)} not removed (${error.message}); removed at the next start if no message keeps it`));
  }

  /** Segments still on disk waiting for their mail to be stored (tests). */
  get segmentsHeld(): number {
    return this.segments.size;
  }
}

async function writeAll(fd: number, buffers: Buffer[], position: number): Promise<void> {
  let left = buffers;
  let at = position;
  while (left.length > 0) {
    // writev takes at most IOV_MAX (1024) buffers at a time, and may write less than asked.
    const chunk = left.slice(0, 1024);
    const { bytesWritten } = await writev(fd, chunk, at);
    at += bytesWritten;
    let skip = bytesWritten;
    left = left.slice(0);
    while (left.length > 0 && skip >= left[0].length) skip -= left.shift()!.length;
    if (skip > 0) left[0] = left[0].subarray(skip);
  }
}

/** A new file's folder entry, made durable (without it a power loss may lose the file though its data was synced). */
async function fsyncFolder(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
