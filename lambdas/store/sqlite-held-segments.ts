/**
 * Raw mail the embedded store keeps where the inbound spool put it (lambdas/layout/inbound-spool-files.ts), instead
 * of writing it a second time: the spool made it durable before its 250, and a message's raw object is then a row
 * naming the segment, the offset and the length (sqlite-blob-store.ts). Writing each raw mail into SQLite as well
 * cost more than a quarter of ingest's CPU (its pages written to the log, then again at each checkpoint). An
 * attachment lifted whole from plain base64 lines (lambdas/ingest/lift-parts.ts) is kept the same way, as that
 * base64, and decoded when read (Node's decoder skips the line breaks; the lines were checked to be nothing else).
 *
 * A segment file is read under either name: the spool's (`segment-<n>`, while some of its mail is not yet stored)
 * or, once the spool has handed it over, `stored-<n>`. The spool renames it only one way, so a read that finds
 * neither finds an object deleted meanwhile. A `stored-` file is removed once no row names it: checked after every
 * commit that stopped naming it, when the spool hands it over (whichever comes last removes it), and at start. A
 * segment's disk space is therefore freed when the last message whose raw mail it holds is deleted: a segment (about
 * 4 MB of small mail, or one mail of 1 MB or more alone: local/inbound-spool.ts) can outlive most of its messages
 * (docs/ARCHITECTURE.md, "Where it stores"). On a full disk a delete frees first the segments only the deleted
 * objects name (removeHandedOver).
 */
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { HeldPlace } from '../core/ports';
import { parseSegmentFileName, segmentFileName } from '../layout/inbound-spool-files';
import { isMissing } from './sqlite-blob-files';

export class HeldSegments {
  /** `named`: whether any row names the segment (read synchronously, so no commit comes between it and a removal). */
  constructor(
    readonly dir: string,
    private readonly named: (segment: number) => boolean,
    private readonly warn: (message: string) => void,
  ) {}

  /** The segment's file, under the spool's name or the handed-over one; rejects with ENOENT when it is gone. */
  async open(segment: number): Promise<FileHandle> {
    try {
      return await fsp.open(path.join(this.dir, segmentFileName('segment', segment)), 'r');
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    return fsp.open(path.join(this.dir, segmentFileName('stored', segment)), 'r');
  }

  /** The object's bytes (decoded, when held as base64). */
  async read(place: HeldPlace): Promise<Buffer> {
    const bytes = await this.readSpan(place);
    return place.encoding === 'base64' ? Buffer.from(bytes.toString('latin1'), 'base64') : bytes;
  }

  private async readSpan(place: HeldPlace): Promise<Buffer> {
    const handle = await this.open(place.segment);
    try {
      const bytes = Buffer.allocUnsafe(place.length);
      for (let at = 0; at < place.length; ) {
        const { bytesRead } = await handle.read(bytes, at, place.length - at, place.offset + at);
        if (bytesRead === 0) throw Object.assign(new Error(`${segmentFileName('segment', place.segment)} is shorter than its object`), { code: 'ENOENT' });
        at += bytesRead;
      }
      return bytes;
    } finally {
      await handle.close();
    }
  }

  /** Removes the handed-over files of `segments` that no row names any more (one still the spool's stays its own). */
  async release(segments: Iterable<number>): Promise<void> {
    for (const segment of new Set(segments)) {
      if (this.named(segment)) continue;
      await fsp.rm(path.join(this.dir, segmentFileName('stored', segment)), { force: true }).catch((error: Error) => this.warn(`[blobs] could not remove spool segment ${segment}: ${error.message}`));
    }
  }

  /**
   * Removes the handed-over files of `segments` whatever names them (a delete on a full disk, ahead of the rows, which
   * then read as gone); one still the spool's stays. Returns how many were removed.
   */
  async removeHandedOver(segments: Iterable<number>): Promise<number> {
    let removed = 0;
    for (const segment of new Set(segments)) {
      try {
        await fsp.unlink(path.join(this.dir, segmentFileName('stored', segment)));
        removed++;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return removed;
  }

  /** At start: removes every handed-over file no row names (a crash between a commit and its removal). Returns how many. */
  sweep(): number {
    if (!fs.existsSync(this.dir)) return 0;
    let removed = 0;
    for (const name of fs.readdirSync(this.dir)) {
      const parsed = parseSegmentFileName(name);
      if (parsed?.state !== 'stored' || this.named(parsed.number)) continue;
      try {
        fs.unlinkSync(path.join(this.dir, name));
        removed++;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return removed;
  }
}
