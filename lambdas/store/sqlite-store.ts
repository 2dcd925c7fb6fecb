/**
 * The embedded adapters: InboxStore, KeyStore and BlobStore on one SQLite database in the data folder (WAL mode,
 * through `libsql`, which ships prebuilt binaries as npm packages), running inside the local stack's process.
 *
 * Durability and group commit: sqlite-engine.ts.
 *
 * Blobs (raw mail, bodies, attachments) live in the database: one commit covers a mail and its envelope, deleting an
 * inbox deletes one key range, and there are no files to keep in step with rows.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EmbeddedStoreConfig } from '../config/app-config';
import type { InboxPosition } from '../core/cursor';
import type { ApiKeyRecord, InboxListing, InboxRecord, InboxRoute, MessageRecord, MessageSummary } from '../core/model';
import { blobKeys, type BlobStore, type DownloadHeaders, type InboxStore, type KeyStore, type MessagePage, type Page, type SignedDownloads, type Stores } from '../core/ports';
import { Engine } from './sqlite-engine';
import { SqliteWebhookStore } from './sqlite-webhook-store';
import { matches, searchFields, type MessageFilter } from '../core/search';
import { MAX_FILTER_SCAN_BYTES, MAX_FILTER_SCAN_ITEMS } from '../core/limits';
import { DOWNLOAD_PATH } from '../core/downloads';

export const DATABASE_FILE = 'tempmail.db';
const SECRET_FILE = 'download-signing.key';
/** Objects a client's promise rests on: the inbound queue (mail that got its 250) and its spool. */
const DURABLE_PREFIXES = [blobKeys.INBOUND_PREFIX, blobKeys.SPOOL_PREFIX];

const SCHEMA = `
CREATE TABLE IF NOT EXISTS inboxes (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  expires_at_epoch INTEGER NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS inboxes_by_account ON inboxes (account_id, id);
-- The inbox list's order (newest first): creation time, then id.
CREATE INDEX IF NOT EXISTS inboxes_by_account_created ON inboxes (account_id, json_extract(record, '$.created_at'), id);
CREATE INDEX IF NOT EXISTS inboxes_by_expiry ON inboxes (expires_at_epoch);
CREATE TABLE IF NOT EXISTS address_claims (
  address TEXT PRIMARY KEY,
  inbox_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  plan TEXT NOT NULL,
  expires_at_epoch INTEGER NOT NULL,
  created_at TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (
  inbox_id TEXT NOT NULL,
  id TEXT NOT NULL,
  summary TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (inbox_id, id)
) WITHOUT ROWID;
-- The folded fields the message filters test (core/search.ts), one row per message.
CREATE TABLE IF NOT EXISTS message_search (
  inbox_id TEXT NOT NULL,
  id TEXT NOT NULL,
  subject TEXT NOT NULL,
  sender TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (inbox_id, id)
) WITHOUT ROWID;
-- A message's search row goes with it, however the message is deleted (one, a batch, or its whole inbox).
CREATE TRIGGER IF NOT EXISTS message_search_follows_messages AFTER DELETE ON messages BEGIN
  DELETE FROM message_search WHERE inbox_id = old.inbox_id AND id = old.id;
END;
CREATE TABLE IF NOT EXISTS day_usage (
  account_id TEXT NOT NULL,
  day TEXT NOT NULL,
  emails INTEGER NOT NULL,
  PRIMARY KEY (account_id, day)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS api_keys (
  key_hash TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  record TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blobs (
  key TEXT PRIMARY KEY,
  content BLOB NOT NULL,
  content_type TEXT NOT NULL,
  metadata TEXT
);
`;

/** Keys within a prefix, as a half-open range the primary key index answers. */
const prefixRange = (prefix: string): [string, string] => [prefix, `${prefix}\uffff`];

const parse = <T>(json: unknown): T => JSON.parse(String(json)) as T;

/** Search rows read at once: a few, so that a scan stops close to its byte bound. */
const SCAN_CHUNK_ROWS = 20;

function insertSearchRow(engine: Engine, inboxId: string, message: MessageRecord): void {
  const fields = searchFields(message);
  engine.sql('INSERT OR REPLACE INTO message_search (inbox_id, id, subject, sender, body) VALUES (?, ?, ?, ?, ?)').run(inboxId, message.id, fields.subject, fields.sender, fields.text);
}

/** The inbox, message, key and blob tables, made or brought up to date at open. */
function migrate(engine: Engine): void {
  engine.db.exec(SCHEMA);
  // Data folders from before claims kept the inbox's creation time (InboxRoute.created_at): the column is added.
  const claimColumns = engine.db.prepare('SELECT name FROM pragma_table_info(?)').all('address_claims').map((c) => String(c.name));
  if (!claimColumns.includes('created_at')) engine.db.exec('ALTER TABLE address_claims ADD COLUMN created_at TEXT');
}

/** Data folders from before message_search existed: their messages get their rows once, at open. */
function backfillSearchRows(engine: Engine): void {
  const missing = engine.read(() =>
    engine.sql('SELECT m.inbox_id, m.record FROM messages m WHERE NOT EXISTS (SELECT 1 FROM message_search s WHERE s.inbox_id = m.inbox_id AND s.id = m.id)').all(),
  );
  if (missing.length === 0) return;
  engine.db.exec('BEGIN IMMEDIATE');
  try {
    for (const row of missing) insertSearchRow(engine, String(row.inbox_id), parse<MessageRecord>(row.record));
    engine.db.exec('COMMIT');
  } catch (error) {
    engine.db.exec('ROLLBACK');
    throw error;
  }
}
const nowEpoch = () => Math.floor(Date.now() / 1000);

export class SqliteInboxStore implements InboxStore, KeyStore {
  constructor(private readonly engine: Engine) {}

  createInbox(inbox: InboxRecord): Promise<boolean> {
    const { engine } = this;
    return engine.write(() => {
      // The claim is free when absent or when the inbox holding it has expired.
      const claim = engine.sql('SELECT expires_at_epoch FROM address_claims WHERE address = ?').get(inbox.email);
      if (claim && Number(claim.expires_at_epoch) > nowEpoch()) return false;
      engine.sql('INSERT INTO inboxes (id, account_id, expires_at_epoch, message_count, record) VALUES (?, ?, ?, 0, ?)').run(
        inbox.id,
        inbox.account_id,
        inbox.expires_at_epoch,
        JSON.stringify(inbox),
      );
      engine
        .sql('INSERT OR REPLACE INTO address_claims (address, inbox_id, account_id, plan, expires_at_epoch, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(inbox.email, inbox.id, inbox.account_id, inbox.plan, inbox.expires_at_epoch, inbox.created_at);
      return true;
    }, true);
  }

  async getInbox(id: string): Promise<InboxRecord | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT record, message_count FROM inboxes WHERE id = ?').get(id));
    return row ? { ...parse<InboxRecord>(row.record), message_count: Number(row.message_count) } : null;
  }

  async listInboxes(accountId: string, limit: number, after?: InboxPosition): Promise<{ items: InboxListing[]; last?: InboxPosition }> {
    const created = "json_extract(record, '$.created_at')";
    const rows = this.engine.read(() =>
      after
        ? this.engine
            .sql(`SELECT record, message_count FROM inboxes WHERE account_id = ? AND (${created} < ? OR (${created} = ? AND id < ?)) ORDER BY ${created} DESC, id DESC LIMIT ?`)
            .all(accountId, after.created_at, after.created_at, after.id, limit + 1)
        : this.engine.sql(`SELECT record, message_count FROM inboxes WHERE account_id = ? ORDER BY ${created} DESC, id DESC LIMIT ?`).all(accountId, limit + 1),
    );
    const items = rows.slice(0, limit).map((r) => ({ ...parse<InboxRecord>(r.record), message_count: Number(r.message_count) }));
    const end = items[items.length - 1];
    return { items, last: rows.length > limit ? { created_at: end.created_at, id: end.id } : undefined };
  }

  async liveInboxCount(accountId: string, epoch: number, atMost: number): Promise<number> {
    const row = this.engine.read(() =>
      this.engine.sql('SELECT COUNT(*) AS n FROM (SELECT 1 FROM inboxes WHERE account_id = ? AND expires_at_epoch > ? LIMIT ?)').get(accountId, epoch, atMost),
    );
    return Number(row?.n ?? 0);
  }

  async inboxForAddress(address: string): Promise<InboxRoute | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT inbox_id, account_id, plan, expires_at_epoch, created_at FROM address_claims WHERE address = ?').get(address));
    if (!row) return null;
    const route: InboxRoute = { id: String(row.inbox_id), email: address, account_id: String(row.account_id), plan: row.plan as InboxRoute['plan'], expires_at_epoch: Number(row.expires_at_epoch) };
    return row.created_at ? { ...route, created_at: String(row.created_at) } : route;
  }

  async markInboxDeleting(inbox: InboxRecord, expiredAtEpoch: number): Promise<void> {
    const { engine } = this;
    await engine.write(() => {
      engine
        .sql("UPDATE inboxes SET expires_at_epoch = ?, record = json_set(record, '$.deleting', json('true'), '$.expires_at_epoch', ?) WHERE id = ?")
        .run(expiredAtEpoch, expiredAtEpoch, inbox.id);
      engine.sql('UPDATE address_claims SET expires_at_epoch = ? WHERE address = ? AND inbox_id = ?').run(expiredAtEpoch, inbox.email, inbox.id);
    }, true);
  }

  deleteMessages(inboxId: string, max: number): Promise<number> {
    const { engine } = this;
    return engine.write(() => {
      const ids = engine.sql('SELECT id FROM messages WHERE inbox_id = ? LIMIT ?').all(inboxId, max).map((r) => String(r.id));
      for (const id of ids) engine.sql('DELETE FROM messages WHERE inbox_id = ? AND id = ?').run(inboxId, id);
      return ids.length;
    });
  }

  async deleteInbox(inbox: InboxRecord): Promise<void> {
    const { engine } = this;
    await engine.write(() => {
      engine.sql('DELETE FROM inboxes WHERE id = ?').run(inbox.id);
      engine.sql('DELETE FROM messages WHERE inbox_id = ?').run(inbox.id);
      // A newer inbox may hold the address already.
      engine.sql('DELETE FROM address_claims WHERE address = ? AND inbox_id = ?').run(inbox.email, inbox.id);
    });
  }

  async listMessages(inboxId: string, limit: number, after?: string, filter?: MessageFilter): Promise<MessagePage> {
    if (filter) return this.searchMessages(inboxId, limit, after, filter);
    const rows = this.engine.read(() =>
      after
        ? this.engine.sql('SELECT summary FROM messages WHERE inbox_id = ? AND id < ? ORDER BY id DESC LIMIT ?').all(inboxId, after, limit + 1)
        : this.engine.sql('SELECT summary FROM messages WHERE inbox_id = ? ORDER BY id DESC LIMIT ?').all(inboxId, limit + 1),
    );
    const items = rows.slice(0, limit).map((r) => parse<MessageSummary>(r.summary));
    return { items, last: rows.length > limit ? items[items.length - 1].id : undefined };
  }

  /**
   * The inbox's search rows newest first, each tested with the rules of DynamoDB's bounded filter and the wait endpoint
   * (core/search.ts `matches`), reading at most MAX_FILTER_SCAN_ITEMS rows and MAX_FILTER_SCAN_BYTES of their text per
   * request, a few rows at a time: a pathological `q` over 800 mails of 95 KB once held the event loop 0.5 s a request.
   * When it stops early, `last` names the last row read and the next page goes on from there. It reads on past the
   * page's last match, within the same bound, to count the matches (`matched`). (SQLite's FTS5 would match words,
   * not substrings.)
   */
  private searchMessages(inboxId: string, limit: number, after: string | undefined, filter: MessageFilter): MessagePage {
    const found: string[] = [];
    let scanned = 0;
    let bytes = 0;
    let cursor = after;
    let more = false;
    scan: for (;;) {
      const rows = this.engine.read(() =>
        cursor
          ? this.engine.sql('SELECT id, subject, sender, body FROM message_search WHERE inbox_id = ? AND id < ? ORDER BY id DESC LIMIT ?').all(inboxId, cursor, SCAN_CHUNK_ROWS)
          : this.engine.sql('SELECT id, subject, sender, body FROM message_search WHERE inbox_id = ? ORDER BY id DESC LIMIT ?').all(inboxId, SCAN_CHUNK_ROWS),
      );
      for (const row of rows) {
        if (scanned >= MAX_FILTER_SCAN_ITEMS || bytes >= MAX_FILTER_SCAN_BYTES) {
          more = true;
          break scan;
        }
        const fields = { subject: String(row.subject), sender: String(row.sender), text: String(row.body ?? '') };
        scanned++;
        bytes += fields.subject.length + fields.sender.length + fields.text.length;
        cursor = String(row.id);
        if (matches(fields, filter)) found.push(cursor);
      }
      if (rows.length < SCAN_CHUNK_ROWS) break;
    }
    const ids = found.slice(0, limit);
    const summaries = ids.length
      ? this.engine.read(() =>
          this.engine.sql(`SELECT summary FROM messages WHERE inbox_id = ? AND id IN (${ids.map(() => '?').join(', ')}) ORDER BY id DESC`).all(inboxId, ...ids),
        )
      : [];
    const items = summaries.map((r) => parse<MessageSummary>(r.summary));
    const last = found.length > limit ? ids[ids.length - 1] : more ? cursor : undefined;
    const matched = { count: found.length, exact: !more };
    return last ? { items, last, matched } : { items, matched };
  }

  async messagesSince(inboxId: string, after: string | undefined, limit: number): Promise<Page<MessageSummary>> {
    const rows = this.engine.read(() => this.engine.sql('SELECT summary FROM messages WHERE inbox_id = ? AND id > ? ORDER BY id ASC LIMIT ?').all(inboxId, after ?? '', limit + 1));
    const items = rows.slice(0, limit).map((r) => parse<MessageSummary>(r.summary));
    return { items, last: rows.length > limit ? items[items.length - 1].id : undefined };
  }

  async getMessage(inboxId: string, messageId: string): Promise<MessageRecord | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT record FROM messages WHERE inbox_id = ? AND id = ?').get(inboxId, messageId));
    return row ? parse<MessageRecord>(row.record) : null;
  }

  putMessage(message: MessageRecord, inbox: InboxRoute, day: string, dailyLimit: number): Promise<'stored' | 'duplicate' | 'quota' | 'gone'> {
    const { engine } = this;
    return engine.write(() => {
      if (engine.sql('SELECT 1 FROM messages WHERE inbox_id = ? AND id = ?').get(inbox.id, message.id)) return 'duplicate' as const;
      const live = engine.sql('SELECT expires_at_epoch FROM inboxes WHERE id = ?').get(inbox.id);
      if (!live || Number(live.expires_at_epoch) <= nowEpoch()) return 'gone' as const;
      const used = engine.sql('SELECT emails FROM day_usage WHERE account_id = ? AND day = ?').get(inbox.account_id, day);
      if (used && Number(used.emails) >= dailyLimit) return 'quota' as const;
      const summary: MessageSummary = {
        id: message.id,
        from: message.from,
        from_name: message.from_name,
        subject: message.subject,
        received_at: message.received_at,
        size: message.size,
      };
      engine.sql('INSERT INTO messages (inbox_id, id, summary, record) VALUES (?, ?, ?, ?)').run(inbox.id, message.id, JSON.stringify(summary), JSON.stringify(message));
      insertSearchRow(engine, inbox.id, message);
      engine.sql('UPDATE inboxes SET message_count = message_count + 1 WHERE id = ?').run(inbox.id);
      engine
        .sql('INSERT INTO day_usage (account_id, day, emails) VALUES (?, ?, 1) ON CONFLICT (account_id, day) DO UPDATE SET emails = emails + 1')
        .run(inbox.account_id, day);
      return 'stored' as const;
    });
  }

  deleteMessage(inboxId: string, messageId: string): Promise<boolean> {
    const { engine } = this;
    return engine.write(() => {
      const { changes } = engine.sql('DELETE FROM messages WHERE inbox_id = ? AND id = ?').run(inboxId, messageId);
      if (changes === 0) return false;
      engine.sql('UPDATE inboxes SET message_count = message_count - 1 WHERE id = ?').run(inboxId);
      return true;
    });
  }

  async usage(accountId: string, day: string): Promise<number> {
    const row = this.engine.read(() => this.engine.sql('SELECT emails FROM day_usage WHERE account_id = ? AND day = ?').get(accountId, day));
    return row ? Number(row.emails) : 0;
  }

  async inboxesExpiredBy(epoch: number): Promise<InboxRecord[]> {
    const rows = this.engine.read(() => this.engine.sql('SELECT record, message_count FROM inboxes WHERE expires_at_epoch <= ?').all(epoch));
    return rows.map((r) => ({ ...parse<InboxRecord>(r.record), message_count: Number(r.message_count) }));
  }

  // --- API keys -------------------------------------------------------------------------------------------

  async putKey(key: ApiKeyRecord): Promise<void> {
    const { engine } = this;
    await engine.write(() => engine.sql('INSERT INTO api_keys (key_hash, created_at, record) VALUES (?, ?, ?)').run(key.key_hash, key.created_at, JSON.stringify(key)), true);
  }

  async getKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT record FROM api_keys WHERE key_hash = ?').get(keyHash));
    return row ? parse<ApiKeyRecord>(row.record) : null;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return this.engine.read(() => this.engine.sql('SELECT record FROM api_keys ORDER BY created_at, key_hash').all()).map((r) => parse<ApiKeyRecord>(r.record));
  }

  revokeKey(keyHash: string, atIso: string): Promise<ApiKeyRecord | null> {
    const { engine } = this;
    return engine.write(() => {
      const row = engine.sql('SELECT record FROM api_keys WHERE key_hash = ?').get(keyHash);
      if (!row) return null;
      const record = parse<ApiKeyRecord>(row.record);
      record.revoked_at ??= atIso;
      engine.sql('UPDATE api_keys SET record = ? WHERE key_hash = ?').run(JSON.stringify(record), keyHash);
      return record;
    }, true);
  }
}

/**
 * Download links signed with a secret kept in the data folder: HMAC-SHA256 over the object key, the expiry and the
 * response headers, so an edited link (another object, other headers, a later expiry) is refused, like S3's.
 */
export class SqliteBlobStore implements BlobStore, SignedDownloads {
  constructor(
    private readonly engine: Engine,
    private readonly secret: Buffer,
    private readonly publicUrl: string,
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
    return row.metadata ? parse<Record<string, string>>(row.metadata) : {};
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

  private signature(key: string, expires: string, headers: DownloadHeaders): Buffer {
    return createHmac('sha256', this.secret).update([key, expires, headers.contentType, headers.contentDisposition].join('\n')).digest();
  }

  async presignGet(key: string, expiresInSeconds: number, response: DownloadHeaders): Promise<string> {
    const expires = String(Math.floor(Date.now() / 1000) + expiresInSeconds);
    const query = new URLSearchParams({
      expires,
      type: response.contentType,
      disposition: response.contentDisposition,
      signature: this.signature(key, expires, response).toString('base64url'),
    });
    return `${this.publicUrl}${DOWNLOAD_PATH}${key.split('/').map(encodeURIComponent).join('/')}?${query}`;
  }

  async open(pathname: string, query: URLSearchParams, nowMs: number): Promise<{ body: Buffer; headers: DownloadHeaders } | 'forbidden' | null> {
    if (!pathname.startsWith(DOWNLOAD_PATH)) return 'forbidden';
    let key: string;
    try {
      key = pathname.slice(DOWNLOAD_PATH.length).split('/').map(decodeURIComponent).join('/');
    } catch {
      return 'forbidden';
    }
    const expires = query.get('expires') ?? '';
    const headers = { contentType: query.get('type') ?? '', contentDisposition: query.get('disposition') ?? '' };
    // Compared as text: decoding would accept edited links (base64 ignores stray characters and the last one's spare bits).
    const given = Buffer.from(query.get('signature') ?? '');
    const wanted = Buffer.from(this.signature(key, expires, headers).toString('base64url'));
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'forbidden';
    if (!/^\d+$/.test(expires) || Number(expires) * 1000 <= nowMs) return 'forbidden';
    const body = await this.get(key);
    return body ? { body, headers } : null;
  }
}

/** The secret download links are signed with: made once, kept in the data folder, readable by its owner only. */
function signingSecret(dataDir: string): Buffer {
  const file = path.join(dataDir, SECRET_FILE);
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32);
  fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return fs.readFileSync(file);
}

export function openEmbeddedStores(config: EmbeddedStoreConfig): Stores {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const engine = new Engine(path.join(config.dataDir, DATABASE_FILE));
  migrate(engine);
  backfillSearchRows(engine);
  const inboxes = new SqliteInboxStore(engine);
  const blobs = new SqliteBlobStore(engine, signingSecret(config.dataDir), config.publicUrl);
  return {
    inboxes,
    keys: inboxes,
    blobs,
    webhooks: new SqliteWebhookStore(engine),
    downloads: blobs,
    async close() {
      // Let writes already queued commit first.
      await engine.write(() => undefined);
      engine.close();
    },
  };
}
