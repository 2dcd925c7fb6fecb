/**
 * Free-space headroom of the data folder's filesystem (the local form only: on AWS, S3 and DynamoDB do not fill up).
 *
 * A full disk used to wedge the stack: mail got a 250 it could not be stored for (it sat in a retry loop, invisible),
 * and DELETE answered 503 for good, also after a restart, because SQLite needs room in its write-ahead log to delete.
 * So, below TEMPMAIL_MIN_FREE_MB of free space new mail is refused (SMTP 452 4.3.1, before the 250) and so are API
 * writes other than deletes (507): the space left is kept for what was promised already (ingest of mail that got
 * its 250, which needs a few times the mail's size while it runs) and for deletes, which free space.
 *
 * Deletes must work even when something else filled the disk to the last byte: a reserve file of RESERVE_BYTES in
 * the data folder is given up as soon as the filesystem is found nearly full (checked at start, before every DELETE
 * and every second), which leaves SQLite the room a delete needs; it is made again once there is room.
 *
 * Free space counts what the filesystem has for this user, plus what the store will reuse before it grows (SQLite's
 * free pages: deleted mail does not shrink its file).
 *
 * The filesystem is asked (statfs) before an API write (`refusesWrite`) and every second. The checks of mail reuse
 * its last answer while it is young, less what was promised then and every byte claimed since (also by mail whose
 * ingest has ended: what it wrote is not in that answer), and ask again before they refuse, so that nothing is
 * refused on an old answer: an RCPT's (`roomForRecipient`, an early refusal only) for a second, the claim at the end
 * of DATA that a 250 rests on for CLAIM_REUSE_MS, and only while no DATA is being written to a file of the SMTP spool
 * (data past 1 MB goes there before it is claimed: `spoolingData`), since the answer does not count those bytes. What
 * other programs write in that time comes out of the headroom (TEMPMAIL_MIN_FREE_MB). A statfs per mail was 2% of
 * ingest's CPU. Ages are measured on the monotonic clock: a wall clock set back does not make an answer young.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The reserve kept for deletes on a full filesystem. */
export const RESERVE_BYTES = 4 * 1024 * 1024;
export const RESERVE_FILE = 'free-space.reserve';
/**
 * What accepting a mail of n bytes may take before its ingest ends: the inbound copy, the inbox's raw copy, the
 * attachments or body object, and the log pages of writing them.
 */
export const INGEST_SPACE_FACTOR = 4;
const CHECK_INTERVAL_MS = 1_000;
/** How old the filesystem's last answer may be for an RCPT's check, and for a mail's claim. */
const REUSE_MS = 1_000;
const CLAIM_REUSE_MS = 100;

/** `undo`, callable any number of times, done the first time only (a claim's release, a spool file's end). */
function once(undo: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    undo();
  };
}

export class FreeSpace {
  private readonly reserveFile: string;
  /** Bytes promised to mail accepted and not yet stored. */
  private promised = 0;
  private timer?: NodeJS.Timeout;
  /** The filesystem was found full (under RESERVE_BYTES): no writes but deletes until it has twice that again. */
  private full = false;
  /** Bytes claimed since start, released or not; and the filesystem's last answer, with when, and both totals then. */
  private claimedEver = 0;
  private last?: { free: number; reclaimable: number; atMs: number; promised: number; claimedEver: number };
  /** DATA being written to files of the SMTP spool now: bytes no answer counts and no claim holds yet. */
  private dataSpools = 0;

  constructor(
    private readonly dataDir: string,
    readonly minFreeBytes: number,
    /** Space the store reuses before it grows (the embedded store's free pages). */
    private readonly reclaimable: () => number = () => 0,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.reserveFile = path.join(dataDir, RESERVE_FILE);
  }

  /** The filesystem's answer now: the bytes it has for us (the reserve not counted), with the store's free pages. */
  private ask(): NonNullable<FreeSpace['last']> {
    const stats = fs.statfsSync(this.dataDir);
    this.last = { free: stats.bavail * stats.bsize, reclaimable: this.reclaimable(), atMs: performance.now(), promised: this.promised, claimedEver: this.claimedEver };
    return this.last;
  }

  /**
   * Whether `bytes` more leave the headroom intact, on the filesystem's last answer while it is under `reuseMs` old.
   * What ingest writes since is at most what was promised then and what has been claimed since, released or not, so
   * both are taken off (and the store's free pages are those of that answer: deletes since only add room); asked
   * again whenever that would refuse, so that it never refuses on an old answer.
   */
  private roomOnLastAnswer(bytes: number, reuseMs: number): boolean {
    const { last } = this;
    if (this.full || !last || performance.now() - last.atMs >= reuseMs) return this.roomFor(bytes);
    const estimate = last.free + last.reclaimable - last.promised - (this.claimedEver - last.claimedEver);
    return estimate - bytes >= this.minFreeBytes || this.roomFor(bytes);
  }

  /** An RCPT's check: room for a mail at all (its claim at the end of DATA decides its 250). */
  roomForRecipient(): boolean {
    return this.roomOnLastAnswer(0, REUSE_MS);
  }

  /** A DATA starts writing to a file of the SMTP spool; the function returned is called once the file is gone. */
  readonly spoolingData = (): (() => void) => {
    this.dataSpools++;
    return once(() => this.dataSpools--);
  };

  /** Free space as the headroom counts it: the filesystem's, what the store reuses, less what accepted mail may take. */
  available(): number {
    const { free, reclaimable } = this.ask();
    return free + reclaimable - this.promised;
  }

  /** Whether `bytes` more leave the headroom intact. */
  roomFor(bytes = 0): boolean {
    return !this.full && this.available() - bytes >= this.minFreeBytes;
  }

  /**
   * Holds `bytes` for a mail accepted until its ingest ends, or null when that would go below the headroom: mail
   * then gets 452, never a 250 that cannot be stored.
   */
  claim(bytes: number): { release(): void } | null {
    // While a DATA is being spooled, no answer is young enough: the claim asks.
    if (!this.roomOnLastAnswer(bytes, this.dataSpools === 0 ? CLAIM_REUSE_MS : 0)) return null;
    this.promised += bytes;
    this.claimedEver += bytes;
    return { release: once(() => (this.promised -= bytes)) };
  }

  /**
   * Gives the reserve up when the filesystem is nearly full, makes it again when there is room. Runs at start (before
   * the store opens), before each DELETE and every second.
   */
  keepReserve(): void {
    const { free } = this.ask();
    const held = fs.existsSync(this.reserveFile);
    if (free < RESERVE_BYTES) {
      this.full = true;
      if (!held) return;
      fs.rmSync(this.reserveFile, { force: true });
      this.log(`[space] the filesystem of ${this.dataDir} is full: reserve released so that deletes can run`);
      return;
    }
    if (free >= 2 * RESERVE_BYTES) this.full = false;
    if (!held && free >= this.minFreeBytes + 2 * RESERVE_BYTES) {
      this.last = undefined; // that answer counts the reserve's bytes as free
      try {
        fs.writeFileSync(this.reserveFile, Buffer.alloc(RESERVE_BYTES), { mode: 0o600 });
      } catch (error) {
        // Filled meanwhile: made again at a later check.
        fs.rmSync(this.reserveFile, { force: true });
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  }

  /**
   * The API gateway's check before a request: a delete frees space, so it always runs (on a full disk with the reserve
   * given up); other writes keep the headroom. The 507 message when refused.
   */
  refusesWrite(method: string): string | undefined {
    if (method === 'DELETE') this.keepReserve();
    else if (method !== 'GET' && method !== 'HEAD' && !this.roomFor()) {
      const mb = Math.round(this.minFreeBytes / 2 ** 20);
      return `insufficient storage: the server keeps ${mb} MB free for mail already accepted and for deletes; delete inboxes or messages, or retry later`;
    }
    return undefined;
  }

  start(): () => void {
    this.keepReserve();
    this.timer = setInterval(() => {
      try {
        this.keepReserve();
      } catch (error) {
        this.log(`[space] ${(error as Error).message}`);
      }
    }, CHECK_INTERVAL_MS);
    this.timer.unref();
    return () => clearInterval(this.timer);
  }
}
