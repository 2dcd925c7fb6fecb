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
 * Writes that arrive together are committed together (group commit): each runs in a savepoint of one transaction,
 * so one write's failure undoes only that write, and a burst of mail costs one fsync per batch, not one per mail.
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

interface PendingWrite {
  run: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** One database, its statements, and the group-commit queue (the inbox, blob and webhook stores write through it). */
export class Engine {
  readonly db: Database;
  private queue: PendingWrite[] = [];
  private scheduled = false;
  private readonly statements = new Map<string, Statement>();
  private readonly walFile: string;
  private walFd?: number;
  /** Durable writes committed, waiting for the next fsync of the WAL; and whether one is running. */
  private unsynced: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private syncing = false;

  constructor(file: string) {
    const Driver = require('libsql') as new (file: string) => Database;
    ownerOnly(file);
    this.db = new Driver(file);
    this.db.pragma('journal_mode = WAL');
    // Commits are ordered and survive a crash of this process; power-loss durability is the explicit fsync below.
    this.db.pragma('synchronous = NORMAL');
    this.walFile = `${file}-wal`;
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

  /** Runs `work` inside the next group commit; resolves once it is committed (`durable`: and fsynced). */
  write<T>(work: () => T, durable = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: work, durable, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    const results: { ok: boolean; value: unknown }[] = [];
    // One write alone needs no savepoint: the transaction is its own.
    const savepoints = batch.length > 1;
    try {
      guarded(() => this.sql('BEGIN IMMEDIATE').run());
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    }
    for (const w of batch) {
      if (savepoints) this.sql('SAVEPOINT w').run();
      try {
        results.push({ ok: true, value: w.run() });
        if (savepoints) this.sql('RELEASE w').run();
      } catch (error) {
        if (savepoints) {
          this.sql('ROLLBACK TO w').run();
          this.sql('RELEASE w').run();
        } else {
          this.sql('ROLLBACK').run();
          w.reject(guardedError(error));
          return;
        }
        results.push({ ok: false, value: error });
      }
    }
    try {
      guarded(() => this.sql('COMMIT').run());
    } catch (error) {
      try {
        this.sql('ROLLBACK').run();
      } catch {
        // already rolled back by the engine
      }
      for (const w of batch) w.reject(error);
      return;
    }
    batch.forEach((w, i) => {
      if (!results[i].ok) w.reject(guardedError(results[i].value));
      else if (w.durable) this.unsynced.push({ resolve: () => w.resolve(results[i].value), reject: w.reject });
      else w.resolve(results[i].value);
    });
    this.syncWal();
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
