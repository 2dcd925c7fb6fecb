/**
 * BlobStore on the embedded SQLite database (raw mail, bodies, attachments, the inbound queue): one commit covers a
 * mail and its envelope, and deleting an inbox deletes one key range. Objects a client's promise rests on (the
 * inbound queue and its spool) resolve only once fsynced (sqlite-engine.ts). Its download links: sqlite-signed-links.ts.
 */
import { blobKeys, type BlobStore, type DownloadHeaders, type SignedDownloads } from '../core/ports';
import type { Engine } from './sqlite-engine';
import type { SignedLinks } from './sqlite-signed-links';

/** Objects a client's promise rests on: the inbound queue (mail that got its 250) and its spool. */
const DURABLE_PREFIXES = [blobKeys.INBOUND_PREFIX, blobKeys.SPOOL_PREFIX];

/** Keys within a prefix, as a half-open range the primary key index answers. */
const prefixRange = (prefix: string): [string, string] => [prefix, `${prefix}\uffff`];

export class SqliteBlobStore implements BlobStore, SignedDownloads {
  constructor(
    private readonly engine: Engine,
    private readonly links: SignedLinks,
  ) {}

  async put(key: string, body: Uint8Array | string, contentType: string, metadata?: Record<string, string>): Promise<void> {
    const { engine } = this;
    const content = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    await engine.write(
      () => engine.sql('INSERT OR REPLACE INTO blobs (key, content, content_type, metadata) VALUES (?, ?, ?, ?)').run(key, content, contentType, metadata ? JSON.stringify(metadata) : null),
      DURABLE_PREFIXES.some((prefix) => key.startsWith(prefix)),
    );
  }

  async get(key: string): Promise<Buffer | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT content FROM blobs WHERE key = ?').get(key));
    return row ? Buffer.from(row.content as Uint8Array) : null;
  }

  async head(key: string): Promise<Record<string, string> | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT metadata FROM blobs WHERE key = ?').get(key));
    if (!row) return null;
    return row.metadata ? (JSON.parse(String(row.metadata)) as Record<string, string>) : {};
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    const { engine } = this;
    const copied = await engine.write(
      () => engine.sql('INSERT OR REPLACE INTO blobs (key, content, content_type, metadata) SELECT ?, content, content_type, metadata FROM blobs WHERE key = ?').run(toKey, fromKey).changes,
    );
    if (copied === 0) throw Object.assign(new Error(`no such object: ${fromKey}`), { name: 'NoSuchKey' });
  }

  async delete(key: string): Promise<void> {
    const { engine } = this;
    await engine.write(() => engine.sql('DELETE FROM blobs WHERE key = ?').run(key));
  }

  async deletePrefix(prefix: string): Promise<number> {
    const { engine } = this;
    return engine.write(() => engine.sql('DELETE FROM blobs WHERE key >= ? AND key < ?').run(...prefixRange(prefix)).changes);
  }

  async list(prefix: string): Promise<string[]> {
    return this.engine.read(() => this.engine.sql('SELECT key FROM blobs WHERE key >= ? AND key < ? ORDER BY key').all(...prefixRange(prefix))).map((r) => String(r.key));
  }

  async presignGet(key: string, expiresInSeconds: number, response: DownloadHeaders): Promise<string> {
    return this.links.sign(key, expiresInSeconds, response);
  }

  async open(pathname: string, query: URLSearchParams, nowMs: number): Promise<{ body: Buffer; headers: DownloadHeaders } | 'forbidden' | null> {
    const link = this.links.verify(pathname, query, nowMs);
    if (link === 'forbidden') return link;
    const body = await this.get(link.key);
    return body ? { body, headers: link.headers } : null;
  }
}
