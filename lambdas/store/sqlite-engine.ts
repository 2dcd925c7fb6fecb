/**
 * The embedded store's engine: one SQLite database (WAL mode, through `libsql`), its prepared statements, and the
 * group commit every embedded store writes through (sqlite-store.ts, sqlite-webhook-store.ts).
 *
 * Durability: a write that a promise to a client rests on (a mail entering the inbound queue before its 250, an
 * inbox before its 201, a key) resolves only once the write-ahead log holding its commit has been fsynced. The
 * fsync runs on libuv's thread pool (fdatasync of the WAL file, what `synchronous = FULL` does at each commit, but
 * without blocking the event loop: the SMTP server keeps serving while the disk works), and one fsync covers every
 * commit before it. What follows from such a write (ingest's message, copies and clean-up, deletes) resolves at
 * commit: WAL keeps commits in order, so after a power loss either it is there or the inbound mail it came from
 * still is, and ingest runs again.
 * Writes that arrive together are committed together (group commit): one transaction and one fsync per batch, not
 * one per write; a write that throws undoes only itself (see `flush`).
 * Caches (the stores keep what every mail reads in memory, written through at commit) answer from memory only when
 * no other connection has committed since SQLite's data_version was last asked. That is checked before every cached
 * answer, or, once the local stack calls `askOncePerInput`, at the first cached answer after each input it marks:
 * a commit that completed before a client sent its request is seen by that request (`askOncePerInput`). A check
 * reads the WAL index's header first (48 bytes of the -shm file, rewritten by every commit of any connection) and
 * asks data_version only when the header has changed since it was last asked.
 */
import fs from 'node:fs';
import { DependencyUnavailable } from '../core/errors';

// libsql ships no types of its own; better-sqlite3's API, of which we use this much.
export interface Statement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
}
export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  close(): void;
}

/** Faults of the engine that mean "not now" (locked by another process, disk full, I/O): a 503 / SMTP 451. */
export function guarded<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    const code = String((error as { code?: string }).code ?? '');
    if (/^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY)/.test(code)) throw new DependencyUnavailable('SQLite', error);
    throw error;
  }
}

/**
 * The -shm files this process reads headers from: one descriptor per file, shared by every engine on it. A process's
 * POSIX locks on a file go when it closes any descriptor of that file, SQLite's locks on the -shm included (SQLite
 * keeps its own descriptors open for that reason). So a descriptor is closed only once every engine on its file has
 * closed its database, never while a connection of this process may hold a lock there.
 */
const sharedWalIndexes = new Map<string, { fd: number; users: number }>();
const walIndexFiles = {
  open(file: string): number {
    const known = sharedWalIndexes.get(file);
    if (known) {
      known.users++;
      return known.fd;
    }
    const fd = fs.openSync(file, 'r');
    sharedWalIndexes.set(file, { fd, users: 1 });
    return fd;
  },
  release(file: string): void {
    const known = sharedWalIndexes.get(file);
    if (!known || --known.users > 0) return;
    sharedWalIndexes.delete(file);
    fs.closeSync(known.fd);
  },
};

/** The first copy of the WAL index header (SQLite's WalIndexHdr), at the start of the -shm file. */
const WAL_INDEX_HEADER_BYTES = 48;

/**
 * How long the first write of a group waits for others before the group commits: a millisecond after a quiet spell
 * (a lone API write or mail is committed at once), BUSY_GROUP_COMMIT_MS while writes keep coming (the last group
 * committed less than that long ago). A commit's cost is mostly per commit, not per write (BEGIN and COMMIT, and
 * the log pages it writes, which the writes of one inbox share): at 1,300 mails/s, groups gathered over 4 ms cost
 * 650-695 µs of CPU per 2 KB mail against 780-815 µs for groups gathered over 1 ms, and write 25% fewer bytes.
 */
const GROUP_COMMIT_MS = 1;
const BUSY_GROUP_COMMIT_MS = 4;

interface PendingWrite {
  run: () => unknown;
  durable: boolean;
  /** Runs right after the commit, before any other code: where a store updates its caches. */
  committed?: (value: unknown) => void;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** One database, its statements, and the group-commit queue (the inbox, blob and webhook stores write through it). */
export class Engine {
  readonly db: Database;
  private queue: PendingWrite[] = [];
  private scheduled = false;
  private lastFlushAt = -Infinity;
  private readonly statements = new Map<string, Statement>();
  private readonly walFile: string;
  private readonly walIndexFile: string;
  private walFd?: number;
  /** The WAL index (the -shm file) once opened, null where it cannot be read; its header now and at the last ask. */
  private walIndexFd?: number | null;
  private readonly walIndexNow = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  private readonly walIndexAsked = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  /** Durable writes committed, waiting for the next fsync of the WAL; and whether one is running. */
  private unsynced: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private syncing = false;
  /**
   * Transactions this connection has committed: a value read from the database is still exact while this has not
   * moved (and no other connection has committed: checkExternalChange), so a cache keyed on it needs no read.
   */
  commits = 0;

  constructor(file: string) {
    const Driver = require('libsql') as new (file: string) => Database;
    ownerOnly(file);
    this.db = new Driver(file);
    this.db.pragma('journal_mode = WAL');
    // Commits are ordered and survive a crash of this process; power-loss durability is the explicit fsync below.
    this.db.pragma('synchronous = NORMAL');
    this.walFile = `${file}-wal`;
    this.walIndexFile = `${file}-shm`;
    // The keys CLI may write while the stack runs: wait for its lock rather than fail.
    this.db.pragma('busy_timeout = 5000');
  }

  sql(text: string): Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  read<T>(call: () => T): T {
    return guarded(call);
  }

  private dataVersion?: number;
  private readonly externalListeners: (() => void)[] = [];
  /** Set by askOncePerInput: data_version is asked only when an input has arrived since the last ask. */
  private askEachInput = false;
  private inputSinceAsk = true;

  /**
   * Caches of what this process wrote (address routes, day counts, webhook lists: the one writer keeps them instead of
   * reading them for every mail) are cleared when another connection has committed since the last check (the keys
   * CLI, a test moving time): SQLite's data_version changes exactly then. Call before answering from a cache.
   */
  onExternalChange(clear: () => void): void {
    this.externalListeners.push(clear);
  }

  /**
   * By default every answer from a cache asks data_version first (a read transaction of its own: about 40 µs where
   * syscalls are dear, six times per mail). After this call it asks only at the first answer after an input (the
   * returned function, which the caller calls whenever something enters the process that may follow another
   * connection's commit: an HTTP request, an SMTP command that reads, a timer's pass). The rule stays exact for
   * every client: a commit that completed before a client sent its request is seen by that request's answers, since
   * the request's arrival is marked before any of them and the first of them asks; answers to work an earlier input
   * started (an ingest after its end of DATA) are as fresh as that input or fresher. What no input follows (another
   * connection's commit nobody has told this process about) is seen at the next input.
   */
  askOncePerInput(): () => void {
    this.askEachInput = true;
    return () => {
      this.inputSinceAsk = true;
    };
  }

  checkExternalChange(): void {
    if (this.askEachInput && !this.inputSinceAsk) return;
    this.inputSinceAsk = false;
    if (this.noCommitSinceAsked()) return;
    const version = Number((this.sql('PRAGMA data_version').get() as { data_version: number }).data_version);
    if (this.dataVersion !== undefined && version !== this.dataVersion) for (const clear of this.externalListeners) clear();
    this.dataVersion = version;
  }

  /**
   * Whether no connection (this one included) has committed since data_version was last asked: the WAL index header
   * is byte for byte what it was then (every commit increments its change counter). One pread where data_version is
   * a read transaction of its own (its locks on the -shm file: about 15 µs, twice per mail). The header read before
   * the ask is the one kept, so a commit between the two is seen at the next check. False (ask) where the file
   * cannot be read.
   */
  private noCommitSinceAsked(): boolean {
    if (this.walIndexFd === undefined) {
      try {
        this.walIndexFd = walIndexFiles.open(this.walIndexFile);
      } catch {
        this.walIndexFd = null;
      }
    }
    if (this.walIndexFd === null) return false;
    let read = 0;
    try {
      read = fs.readSync(this.walIndexFd, this.walIndexNow, 0, WAL_INDEX_HEADER_BYTES, 0);
    } catch {
      // Unreadable now: data_version answers.
    }
    if (this.dataVersion !== undefined && read === WAL_INDEX_HEADER_BYTES && this.walIndexNow.equals(this.walIndexAsked)) return true;
    this.walIndexNow.copy(this.walIndexAsked);
    if (read !== WAL_INDEX_HEADER_BYTES) this.walIndexAsked.fill(0);
    return false;
  }

  /**
   * Runs `work` inside the next group commit; resolves once it is committed (`durable`: and fsynced). `committed`
   * runs synchronously at the commit, so that no read can come between the commit and a cache's update.
   */
  write<T>(work: () => T, durable = false, committed?: (value: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: work, durable, committed: committed as ((value: unknown) => void) | undefined, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // The wait gathers the writes of mails parsed meanwhile into the same commit: a commit writes every page it
        // touched into the log (4 KB each, then again at checkpoint), so one commit per mail wrote 40-50 KB per 2 KB mail.
        const busy = performance.now() - this.lastFlushAt < BUSY_GROUP_COMMIT_MS;
        setTimeout(() => this.flush(), busy ? BUSY_GROUP_COMMIT_MS : GROUP_COMMIT_MS);
      }
    });
  }

  /**
   * Commits the queued writes in one transaction with no savepoint per write (each SAVEPOINT/RELEASE pair is two
   * more statements per write, a tenth of ingest's CPU once): when a write throws, the whole transaction is rolled back
   * and the batch runs again one write per transaction, so that one write's failure undoes only that write. A write
   * is a closure over SQL alone (no state of its own outside the database), so running it again is running it once.
   */
  private flush(): void {
    this.scheduled = false;
    this.lastFlushAt = performance.now();
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 1 || !this.commitTogether(batch)) for (const w of batch) this.commitTogether([w]);
  }

  /** One transaction for `batch`; false (rolled back, nothing settled) when one write of several threw. */
  private commitTogether(batch: PendingWrite[]): boolean {
    const results: unknown[] = [];
    try {
      guarded(() => this.sql('BEGIN IMMEDIATE').run());
    } catch (error) {
      for (const w of batch) w.reject(error);
      return true;
    }
    for (const w of batch) {
      try {
        results.push(w.run());
      } catch (error) {
        this.rollback();
        if (batch.length > 1) return false;
        w.reject(guardedError(error));
        return true;
      }
    }
    try {
      guarded(() => this.sql('COMMIT').run());
    } catch (error) {
      this.rollback();
      for (const w of batch) w.reject(error);
      return true;
    }
    this.commits++;
    batch.forEach((w, i) => w.committed?.(results[i]));
    batch.forEach((w, i) => {
      if (w.durable) this.unsynced.push({ resolve: () => w.resolve(results[i]), reject: w.reject });
      else w.resolve(results[i]);
    });
    this.syncWal();
    return true;
  }

  private rollback(): void {
    try {
      this.sql('ROLLBACK').run();
    } catch {
      // already rolled back by the engine
    }
  }

  /** Resolves once every write committed before the call is fsynced (the inbound spool hands a segment over after it). */
  sync(): Promise<void> {
    return this.write(() => undefined, true);
  }

  /** fdatasync of the WAL on the thread pool; the writes waiting for it resolve when it is done (or fail with it). */
  private syncWal(): void {
    if (this.syncing || this.unsynced.length === 0) return;
    this.syncing = true;
    const waiting = this.unsynced;
    this.unsynced = [];
    this.walFd ??= fs.openSync(this.walFile, 'r');
    fs.fdatasync(this.walFd, (error) => {
      this.syncing = false;
      // A failed fsync leaves durability unknown: the caller fails (SMTP: 451, and the client sends it again).
      for (const write of waiting) {
        if (error) write.reject(new DependencyUnavailable('SQLite', error));
        else write.resolve();
      }
      this.syncWal();
    });
  }

  close(): void {
    if (this.walFd !== undefined) fs.closeSync(this.walFd);
    this.db.close();
    if (typeof this.walIndexFd === 'number') walIndexFiles.release(this.walIndexFile);
  }
}

/**
 * The database holds every mail and key hash: readable and writable by its owner only, whatever the umask. SQLite
 * gives its -wal and -shm files the database's mode; files of older versions are narrowed too.
 */
function ownerOnly(file: string): void {
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const each of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(each, 0o600);
    } catch (error) {
      // Absent (no -wal yet), or another user's file in a shared folder: SQLite itself says what it cannot open.
      if (!['ENOENT', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }
}

function guardedError(error: unknown): unknown {
  try {
    return guarded(() => {
      throw error;
    });
  } catch (mapped) {
    return mapped;
  }
}
