/**
 * BlobStore on the embedded SQLite database (raw mail, bodies, attachments, the inbound queue): one row per object,
 * and deleting an inbox deletes one key range. Objects of FILE_BLOB_MIN_BYTES or more keep their bytes in a file of
 * the data folder that the row names (sqlite-blob-files.ts: written and read off the event loop, streamed to
 * downloads); smaller ones keep them in the row. Objects a client's promise rests on (the inbound queue and its spool)
 * resolve only once fsynced (sqlite-engine.ts); every file is fsynced before its row commits. Raw mail the inbound
 * spool holds already, and attachments lifted whole from its base64 (HeldBody), are not written again: the row names
 * the spool segment and the span of the bytes there, decoded when read if base64 (sqlite-held-segments.ts); a held
 * attachment of FILE_BLOB_MIN_BYTES or more decoded becomes a file all the same. Its download links:
 * sqlite-signed-links.ts.
 */
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { ByteSpan } from '../core/byte-range';
import { cutJson } from '../core/message';
import { blobKeys, isChunks, isHeld, type HeldPlace, type BlobBody, type BlobStore, type CutJson, type DownloadHeaders, type SignedDownloads, type StoredStream } from '../core/ports';
import type { JsonReadThread } from './json-read-thread';
import type { Engine } from './sqlite-engine';
import type { SignedLinks } from './sqlite-signed-links';
import { FILE_BLOB_MIN_BYTES, isMissing, type BlobFiles } from './sqlite-blob-files';
import type { HeldSegments } from './sqlite-held-segments';

/** Objects a client's promise rests on: the inbound queue (mail that got its 250) and its spool. */
const DURABLE_PREFIXES = [blobKeys.INBOUND_PREFIX, blobKeys.SPOOL_PREFIX];

/** Keys within a prefix, as a half-open range the primary key index answers. */
const prefixRange = (prefix: string): [string, string] => [prefix, `${prefix}\uffff`];

const EMPTY = Buffer.alloc(0);
const INSERT = 'INSERT OR REPLACE INTO blobs (key, content, content_type, metadata, file) VALUES (?, ?, ?, ?, ?)';
const INSERT_HELD = 'INSERT OR REPLACE INTO blobs (key, content, content_type, metadata, segment, segment_offset, segment_length, segment_encoding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
/** The file or spool segment a key's row names, if any. */
const NAMED_BY = 'SELECT file, segment FROM blobs WHERE key = ?';
/** A row's bytes: in the row, in its file, or in a spool segment. */
const STORED = 'SELECT content, file, segment, segment_offset, segment_length, segment_encoding FROM blobs WHERE key = ?';

/** What a write stopped naming: files to remove after its commit, segments to remove if no row names them then. */
interface Freed {
  files: string[];
  segments: number[];
}
const freedFrom = (rows: Record<string, unknown>[]): Freed => ({
  files: rows.filter((r) => r.file !== null && r.file !== undefined).map((r) => String(r.file)),
  segments: rows.filter((r) => r.segment !== null && r.segment !== undefined).map((r) => Number(r.segment)),
});

const noSuchKey = (key: string) => Object.assign(new Error(`no such object: ${key}`), { name: 'NoSuchKey' });

/** A file read can find its file removed by a delete that committed after the row was read: the row is read again. */
const READ_ATTEMPTS = 3;

export class SqliteBlobStore implements BlobStore, SignedDownloads {
  constructor(
    private readonly engine: Engine,
    private readonly links: SignedLinks,
    private readonly files: BlobFiles,
    private readonly jsonReader: JsonReadThread,
    private readonly held: HeldSegments,
  ) {}

  async put(key: string, body: BlobBody, contentType: string, metadata?: Record<string, string>): Promise<void> {
    const { engine } = this;
    const meta = metadata ? JSON.stringify(metadata) : null;
    const durable = DURABLE_PREFIXES.some((prefix) => key.startsWith(prefix));
    // Held bytes are named where they lie, unless decoding them at each read would be a file's size of work.
    if (isHeld(body) && !(body.held.encoding && body.size >= FILE_BLOB_MIN_BYTES)) {
      const { segment, offset, length, encoding } = body.held;
      await this.commit(() => ({ result: undefined, freed: this.replacing(key, () => engine.sql(INSERT_HELD).run(key, EMPTY, contentType, meta, segment, offset, length, encoding ?? null)) }), durable);
      return;
    }
    // Chunks stay chunks (a file takes them one after another): never joined into one large copy on the event loop.
    const chunks: readonly Uint8Array[] = isChunks(body) ? body : [isHeld(body) ? body.bytes() : typeof body === 'string' ? Buffer.from(body) : body];
    const size = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
    if (size < FILE_BLOB_MIN_BYTES) {
      const content = chunks.length === 1 ? Buffer.from(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength) : Buffer.concat(chunks);
      await this.commit(() => ({ result: undefined, freed: this.replacing(key, () => engine.sql(INSERT).run(key, content, contentType, meta, null)) }), durable);
      return;
    }
    const file = await this.files.write(chunks);
    await this.commit(() => ({ result: undefined, freed: this.replacing(key, () => engine.sql(INSERT).run(key, EMPTY, contentType, meta, file)) }), durable, { key, file });
  }

  async get(key: string): Promise<Buffer | null> {
    return this.readStored(
      key,
      (row) => Buffer.from(row.content as Uint8Array),
      (file) => fsp.readFile(this.files.path(file)),
      (place) => this.held.read(place),
    );
  }

  /** A row's JSON (under FILE_BLOB_MIN_BYTES) is parsed here; a file's on the JSON reader's thread. */
  async getJson(key: string, maxStringChars: number): Promise<CutJson | null> {
    return this.readStored(
      key,
      (row) => cutJson(Buffer.from(row.content as Uint8Array).toString('utf8'), maxStringChars),
      (file) => this.jsonReader.read(this.files.path(file), maxStringChars),
      async (place) => cutJson((await this.held.read(place)).toString('utf8'), maxStringChars),
    );
  }

  /**
   * The object's bytes as a stream (a file's read in chunks as they are sent), with its size; null when it is gone.
   * `pick` may choose a span of them once the size is known (a Range request).
   */
  async openStream(key: string, pick?: (size: number) => ByteSpan | undefined): Promise<StoredStream | null> {
    return this.readStored(
      key,
      (row) => {
        const content = Buffer.from(row.content as Uint8Array);
        const span = pick?.(content.length);
        return { body: Readable.from([span ? content.subarray(span.start, span.end + 1) : content]), size: content.length, span };
      },
      async (file) => {
        // Opened before it is streamed: a delete that removes the file meanwhile leaves this read whole.
        const handle = await fsp.open(this.files.path(file), 'r');
        try {
          const { size } = await handle.stat();
          const span = pick?.(size);
          return { body: handle.createReadStream(span ? { start: span.start, end: span.end } : {}), size, span };
        } catch (error) {
          await handle.close();
          throw error;
        }
      },
      async (place) => {
        if (place.encoding) {
          const content = await this.held.read(place);
          const span = pick?.(content.length);
          return { body: Readable.from([span ? content.subarray(span.start, span.end + 1) : content]), size: content.length, span };
        }
        const handle = await this.held.open(place.segment);
        const span = pick?.(place.length);
        const [start, end] = span ? [place.offset + span.start, place.offset + span.end] : [place.offset, place.offset + place.length - 1];
        return { body: handle.createReadStream({ start, end }), size: place.length, span };
      },
    );
  }

  async head(key: string): Promise<Record<string, string> | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT metadata FROM blobs WHERE key = ?').get(key));
    if (!row) return null;
    return row.metadata ? (JSON.parse(String(row.metadata)) as Record<string, string>) : {};
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    const { engine } = this;
    const source = engine.read(() => engine.sql('SELECT file, content_type, metadata FROM blobs WHERE key = ?').get(fromKey));
    // A row (its bytes in it, or in a spool segment) is copied inside one write, which fails if it is gone by then:
    // a segment is removed only when no row names it, so the copy's row can never name a removed one.
    if (!source) throw noSuchKey(fromKey);
    if (source.file === null) {
      const copied = await this.commit(() => {
        let changes = 0;
        const freed = this.replacing(toKey, () => {
          changes = engine
            .sql(
              'INSERT OR REPLACE INTO blobs (key, content, content_type, metadata, file, segment, segment_offset, segment_length, segment_encoding) SELECT ?, content, content_type, metadata, NULL, segment, segment_offset, segment_length, segment_encoding FROM blobs WHERE key = ? AND file IS NULL',
            )
            .run(toKey, fromKey).changes;
        });
        return { result: changes, freed };
      });
      if (copied === 0) throw noSuchKey(fromKey);
      return;
    }
    let file: string;
    try {
      file = await this.files.link(String(source.file));
    } catch (error) {
      // Its file removed meanwhile: the object was deleted (or replaced) after it was looked up.
      if (isMissing(error)) throw noSuchKey(fromKey);
      throw error;
    }
    await this.commit(
      () => ({ result: undefined, freed: this.replacing(toKey, () => engine.sql(INSERT).run(toKey, EMPTY, source.content_type, source.metadata, file)) }),
      false,
      { key: toKey, file },
    );
  }

  async delete(key: string): Promise<void> {
    const { engine } = this;
    await this.commit(() => ({ result: undefined, freed: this.replacing(key, () => engine.sql('DELETE FROM blobs WHERE key = ?').run(key)) }));
  }

  async deletePrefix(prefix: string): Promise<number> {
    const { engine } = this;
    return this.commit(() => {
      const range = prefixRange(prefix);
      const freed = freedFrom(engine.sql('SELECT file, segment FROM blobs WHERE key >= ? AND key < ? AND (file IS NOT NULL OR segment IS NOT NULL)').all(...range));
      return { result: engine.sql('DELETE FROM blobs WHERE key >= ? AND key < ?').run(...range).changes, freed };
    });
  }

  async list(prefix: string): Promise<string[]> {
    return this.engine.read(() => this.engine.sql('SELECT key FROM blobs WHERE key >= ? AND key < ? ORDER BY key').all(...prefixRange(prefix))).map((r) => String(r.key));
  }

  async presignGet(key: string, expiresInSeconds: number, response: DownloadHeaders): Promise<string> {
    return this.links.sign(key, expiresInSeconds, response);
  }

  async downloadOrigin(): Promise<string> {
    return this.links.origin;
  }

  verify(pathname: string, query: URLSearchParams, nowMs: number): { key: string; headers: DownloadHeaders } | 'forbidden' {
    return this.links.verify(pathname, query, nowMs);
  }

  /**
   * Removes the files of the objects under `prefix` ahead of their rows, which then read as gone: on a full disk, the
   * room the delete that follows needs to write (SQLite needs log space to delete anything).
   */
  async releaseFiles(prefix: string): Promise<number> {
    const { engine } = this;
    const range = prefixRange(prefix);
    const files = engine.read(() => engine.sql('SELECT file FROM blobs WHERE key >= ? AND key < ? AND file IS NOT NULL').all(...range)).map((r) => String(r.file));
    await this.files.remove(files);
    // Spool segments too, those only objects under the prefix name (another inbox's message may share one).
    const segments = engine
      .read(() => engine.sql('SELECT DISTINCT segment FROM blobs WHERE key >= ? AND key < ? AND segment IS NOT NULL').all(...range))
      .map((r) => Number(r.segment))
      .filter((segment) => !engine.read(() => engine.sql('SELECT 1 FROM blobs WHERE segment = ? AND (key < ? OR key >= ?) LIMIT 1').get(segment, ...range)));
    return files.length + (await this.held.removeHandedOver(segments));
  }

  /** Every file a row names: what the sweep keeps. */
  namedFiles(): Set<string> {
    return new Set(this.engine.read(() => this.engine.sql('SELECT file FROM blobs WHERE file IS NOT NULL').all()).map((r) => String(r.file)));
  }

  /** Runs `change` on the key's row inside a write and returns what the row named before (to remove after the commit). */
  private replacing(key: string, change: () => unknown): Freed {
    const before = this.engine.sql(NAMED_BY).get(key);
    change();
    return freedFrom(before ? [before] : []);
  }

  /**
   * Commits `work` in the next group commit, then removes the files it stopped naming. `made`: the new file the
   * write names; when the write fails it is removed, unless the commit happened after all (a failed fsync of the log).
   */
  private async commit<T>(work: () => { result: T; freed: Freed }, durable = false, made?: { key: string; file: string }): Promise<T> {
    let outcome: { result: T; freed: Freed };
    try {
      outcome = await this.engine.write(work, durable);
    } catch (error) {
      if (made && !this.engine.read(() => this.engine.sql('SELECT 1 FROM blobs WHERE key = ? AND file = ?').get(made.key, made.file))) await this.files.remove([made.file]);
      throw error;
    } finally {
      if (made) this.files.settled(made.file);
    }
    if (outcome.freed.files.length) await this.files.remove(outcome.freed.files);
    if (outcome.freed.segments.length) await this.held.release(outcome.freed.segments);
    return outcome.result;
  }

  /**
   * A row's bytes, from the row or from its file; a file removed between the row's read and its open: read again. A
   * file still missing was removed ahead of its row (releaseFiles): the object is gone.
   */
  private async readStored<T>(
    key: string,
    inRow: (row: Record<string, unknown>) => T,
    inFile: (file: string) => Promise<T>,
    inSegment: (place: HeldPlace) => Promise<T>,
  ): Promise<T | null> {
    for (let attempt = 1; ; attempt++) {
      const row = this.engine.read(() => this.engine.sql(STORED).get(key));
      if (!row) return null;
      const inFileOrSegment = row.file !== null && row.file !== undefined;
      const inSpool = row.segment !== null && row.segment !== undefined;
      if (!inFileOrSegment && !inSpool) return inRow(row);
      try {
        return inSpool
          ? await inSegment({ segment: Number(row.segment), offset: Number(row.segment_offset), length: Number(row.segment_length), ...(row.segment_encoding === 'base64' ? { encoding: 'base64' as const } : {}) })
          : await inFile(String(row.file));
      } catch (error) {
        if (!isMissing(error)) throw error;
        if (attempt >= READ_ATTEMPTS) return null;
      }
    }
  }
}
