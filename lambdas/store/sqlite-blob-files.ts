/**
 * The embedded store's large objects (raw mail, attachments: up to 40 MB each) as files in the data folder's `blobs/`
 * folder, not as rows: a 38 MB row is written and read by SQLite on the event loop (7.6 s of `Statement.run` for two
 * such mails once held every request), and SQLite copies it whole into memory on each put, get and copy. A file is
 * written, read and linked by libuv's thread pool, in chunks, and a download streams it.
 *
 * Crash safety: a file gets a fresh random name, is written and fsynced (its data and its folder entry) before the row
 * that names it commits (sqlite-blob-store.ts), and a file is removed only after the commit that stopped naming it.
 * A crash between the two leaves a file no row names: `sweep` removes those, at the local stack's start. Files never
 * change once written; a copy is a hard link (a second name for the same bytes), so copying a mail to ten inboxes
 * takes no more disk and no more memory than one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DependencyUnavailable } from '../core/errors';

/** The folder, inside the data folder. */
export const BLOB_FILES_DIR = 'blobs';
/** Objects at least this large are kept as files; smaller ones (bodies, small mail) stay rows, one commit with their message. */
export const FILE_BLOB_MIN_BYTES = 256 * 1024;

const NAME = /^[0-9a-f]{32}$/;

/** Faults of the disk that mean "not now" (full, I/O, out of descriptors): a 503 / SMTP 451, as SQLite's are. */
function guardedFs(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return ['ENOSPC', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE', 'EROFS'].includes(code) ? new DependencyUnavailable('the data folder', error) : error;
}

export const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

export class BlobFiles {
  /** Names written or linked by this process whose row has not committed yet: never swept. */
  private readonly unsettled = new Set<string>();

  /** `warn`: where a removal that failed is told (the app's logger, from the composition root). */
  constructor(
    readonly dir: string,
    private readonly warn: (message: string) => void,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  path(name: string): string {
    return path.join(this.dir, name);
  }

  /** A new file holding `body` (its chunks in order), durable (data and name) when this resolves. Call `settled(name)` once its row has committed or failed. */
  async write(body: Uint8Array | readonly Uint8Array[]): Promise<string> {
    return this.place(async (name) => {
      const handle = await fsp.open(this.path(name), 'wx', 0o600);
      try {
        for (const chunk of body instanceof Uint8Array ? [body] : body) {
          for (let at = 0; at < chunk.byteLength; ) at += (await handle.write(chunk, at, chunk.byteLength - at)).bytesWritten;
        }
        await handle.datasync();
      } finally {
        await handle.close();
      }
    });
  }

  /** A second name for the file `from` (a copy on filesystems without hard links); its `ENOENT` when `from` is gone. */
  async link(from: string): Promise<string> {
    return this.place(async (name) => {
      try {
        await fsp.link(this.path(from), this.path(name));
      } catch (error) {
        if (!['EXDEV', 'EPERM', 'ENOTSUP', 'EMLINK', 'EOPNOTSUPP'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
        await fsp.copyFile(this.path(from), this.path(name), fs.constants.COPYFILE_EXCL);
        const handle = await fsp.open(this.path(name), 'r');
        await handle.datasync().finally(() => handle.close());
      }
    });
  }

  /** A reserved name, filled by `fill` and made durable in the folder; on failure the file is removed and the name freed. */
  private async place(fill: (name: string) => Promise<void>): Promise<string> {
    const name = this.reserveName();
    try {
      await fill(name);
      await this.syncFolder();
      return name;
    } catch (error) {
      await this.remove([name]);
      this.settled(name);
      throw guardedFs(error);
    }
  }

  settled(name: string): void {
    this.unsettled.delete(name);
  }

  /** Removes files; one already gone is fine (a sweep or another delete was first). */
  async remove(names: Iterable<string>): Promise<void> {
    await Promise.all(
      [...names].map((name) =>
        fsp.unlink(this.path(name)).catch((error) => {
          if (!isMissing(error)) this.warn(`[blobs] could not remove ${name}: ${(error as Error).message}`);
        }),
      ),
    );
  }

  /**
   * Removes the files `named` does not hold and no write of this process is making: what a crash left between a
   * file's write and its row's commit, or between a row's delete and its file's removal. Returns how many.
   * `named` is read when called, synchronously with the check, so no commit can come between.
   */
  sweep(named: () => Set<string>): number {
    const present = fs.readdirSync(this.dir);
    const keep = named();
    let removed = 0;
    for (const name of present) {
      if (keep.has(name) || this.unsettled.has(name)) continue;
      // Only our own names: anything else in the folder is left alone.
      if (!NAME.test(name)) continue;
      try {
        fs.unlinkSync(this.path(name));
        removed++;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return removed;
  }

  private reserveName(): string {
    const name = randomBytes(16).toString('hex');
    this.unsettled.add(name);
    return name;
  }

  /** The folder's entry for a new name survives a power loss only once the folder itself is fsynced. */
  private async syncFolder(): Promise<void> {
    const handle = await fsp.open(this.dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
