/**
 * InboxStore on the embedded SQLite database: inboxes, their address claims, messages (with their search rows) and the
 * day's usage per account. Writes go through the engine's group commit (sqlite-engine.ts).
 */
import type { InboxPosition } from '../core/cursor';
import type { InboxListing, InboxRecord, InboxRoute, MessageRecord, MessageSummary } from '../core/model';
import { summaryOf } from '../core/model';
import { recordJson } from '../core/message';
import type { InboxStore, MessagePage, Page, PutRules } from '../core/ports';
import { claimIsFree, isLiveAt } from '../core/inbox';
import { matches, type MessageFilter } from '../core/search';
import { MAX_FILTER_SCAN_BYTES, MAX_FILTER_SCAN_ITEMS } from '../core/limits';
import type { Engine } from './sqlite-engine';
import { INSERT_SEARCH_ROW, insertSearchRow } from './sqlite-search';

const parse = <T>(json: unknown): T => JSON.parse(String(json)) as T;

/**
 * A search reads and tests about this much text between two turns of the event loop, so that other requests and SMTP
 * sessions are served between slices however many searches run. Ten searches' slices run back to back in one turn:
 * at 256 KB the stalls bench's slowest probe was 69–218 ms here (7 runs), at 128 KB 55–61 ms (3 runs), each search
 * taking about half as long again.
 */
export const SEARCH_SLICE_BYTES = 128 * 1024;
/** Rows of a search's first slice; later slices hold as many rows as the rows read so far suggest fit SEARCH_SLICE_BYTES. */
const FIRST_SLICE_ROWS = 4;
const MAX_SLICE_ROWS = 100;

const nextSliceRows = (rows: number, bytes: number) => Math.max(1, Math.min(MAX_SLICE_ROWS, Math.floor((SEARCH_SLICE_BYTES * rows) / Math.max(1, bytes))));

/** Lets the event loop run I/O (other requests, SMTP) before the caller goes on. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Entries a cache holds at most; past that it starts again (a prober's addresses cannot grow it without bound). */
const CACHE_ENTRIES = 10_000;

/** Takes an inbox's stored bytes off its account, inside a write, unless it was marked deleting (taken off then). */
function releaseInboxBytes(engine: Engine, inboxId: string): void {
  const row = engine.sql("SELECT account_id, stored_bytes, json_extract(record, '$.deleting') AS deleting FROM inboxes WHERE id = ?").get(inboxId);
  if (!row || row.deleting || !Number(row.stored_bytes)) return;
  subtractAccountBytes(engine, String(row.account_id), Number(row.stored_bytes));
}

function subtractAccountBytes(engine: Engine, accountId: string, bytes: number): void {
  engine.sql('UPDATE account_storage SET bytes = MAX(0, bytes - ?) WHERE account_id = ?').run(bytes, accountId);
}

function remember<K, V>(cache: Map<K, V>, key: K, value: V): V {
  if (cache.size >= CACHE_ENTRIES) cache.clear();
  cache.set(key, value);
  return value;
}

/**
 * This process is the database's one writer (the keys CLI writes keys only), so it keeps what every mail reads
 * several times (the address's route at RCPT, end of DATA and ingest; the account's day count and stored bytes) in memory, written
 * through at each commit and dropped when another connection has committed (Engine.checkExternalChange: at every
 * answer, or in the local stack at the first answer after each input, Engine.askOncePerInput).
 */
export class SqliteInboxStore implements InboxStore {
  private readonly routes = new Map<string, InboxRoute | null>();
  private readonly dayCounts = new Map<string, number>();
  /** Each account's stored bytes (asked at every RCPT and end of DATA): added to at a stored message's commit, dropped at any commit that takes bytes off. */
  private readonly storedBytes = new Map<string, number>();

  constructor(private readonly engine: Engine) {
    engine.onExternalChange(() => {
      this.routes.clear();
      this.dayCounts.clear();
      this.storedBytes.clear();
    });
  }

  /** At the commit of a write that took bytes off an account (which one is known only inside the write). */
  private readonly bytesReleased = () => this.storedBytes.clear();

  createInbox(inbox: InboxRecord, nowEpoch: number): Promise<boolean> {
    const { engine } = this;
    return engine.write(() => {
      const claim = engine.sql('SELECT expires_at_epoch FROM address_claims WHERE address = ?').get(inbox.email);
      if (!claimIsFree(claim && { expires_at_epoch: Number(claim.expires_at_epoch) }, nowEpoch)) return false;
      engine.sql('INSERT INTO inboxes (id, account_id, expires_at_epoch, message_count, record, inbox_group) VALUES (?, ?, ?, 0, ?, ?)').run(
        inbox.id,
        inbox.account_id,
        inbox.expires_at_epoch,
        JSON.stringify(inbox),
        inbox.group ?? null,
      );
      engine
        .sql('INSERT OR REPLACE INTO address_claims (address, inbox_id, account_id, plan, expires_at_epoch, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(inbox.email, inbox.id, inbox.account_id, inbox.plan, inbox.expires_at_epoch, inbox.created_at);
      return true;
    }, true, () => this.routes.delete(inbox.email));
  }

  async getInbox(id: string): Promise<InboxRecord | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT record, message_count FROM inboxes WHERE id = ?').get(id));
    return row ? { ...parse<InboxRecord>(row.record), message_count: Number(row.message_count) } : null;
  }

  async listInboxes(accountId: string, limit: number, after?: InboxPosition, group?: string): Promise<{ items: InboxListing[]; last?: InboxPosition }> {
    const created = "json_extract(record, '$.created_at')";
    // One group's inboxes through its own index (008-inbox-groups.sql), the account's through inboxes_by_account_created.
    const [owner, ownerArgs] = group === undefined ? ['account_id = ?', [accountId]] : ['account_id = ? AND inbox_group = ?', [accountId, group]];
    const rows = this.engine.read(() =>
      after
        ? this.engine
            .sql(`SELECT record, message_count FROM inboxes WHERE ${owner} AND (${created} < ? OR (${created} = ? AND id < ?)) ORDER BY ${created} DESC, id DESC LIMIT ?`)
            .all(...ownerArgs, after.created_at, after.created_at, after.id, limit + 1)
        : this.engine.sql(`SELECT record, message_count FROM inboxes WHERE ${owner} ORDER BY ${created} DESC, id DESC LIMIT ?`).all(...ownerArgs, limit + 1),
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
    this.engine.read(() => this.engine.checkExternalChange());
    const cached = this.routes.get(address);
    if (cached !== undefined) return cached ? { ...cached } : null;
    const row = this.engine.read(() => this.engine.sql('SELECT inbox_id, account_id, plan, expires_at_epoch, created_at FROM address_claims WHERE address = ?').get(address));
    if (!row) return remember(this.routes, address, null);
    const route: InboxRoute = { id: String(row.inbox_id), email: address, account_id: String(row.account_id), plan: row.plan as InboxRoute['plan'], expires_at_epoch: Number(row.expires_at_epoch) };
    const found: InboxRoute = row.created_at ? { ...route, created_at: String(row.created_at) } : route;
    remember(this.routes, address, found);
    return { ...found };
  }

  async markInboxDeleting(inbox: InboxRecord, expiredAtEpoch: number): Promise<void> {
    const { engine } = this;
    await engine.write(() => {
      releaseInboxBytes(engine, inbox.id);
      engine
        .sql("UPDATE inboxes SET expires_at_epoch = ?, record = json_set(record, '$.deleting', json('true'), '$.expires_at_epoch', ?) WHERE id = ?")
        .run(expiredAtEpoch, expiredAtEpoch, inbox.id);
      engine.sql('UPDATE address_claims SET expires_at_epoch = ? WHERE address = ? AND inbox_id = ?').run(expiredAtEpoch, inbox.email, inbox.id);
    }, true, () => (this.routes.delete(inbox.email), this.bytesReleased()));
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
      releaseInboxBytes(engine, inbox.id);
      engine.sql('DELETE FROM inboxes WHERE id = ?').run(inbox.id);
      engine.sql('DELETE FROM messages WHERE inbox_id = ?').run(inbox.id);
      // A newer inbox may hold the address already.
      engine.sql('DELETE FROM address_claims WHERE address = ? AND inbox_id = ?').run(inbox.email, inbox.id);
    }, false, () => (this.routes.delete(inbox.email), this.bytesReleased()));
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
   * request. When it stops early, `last` names the last row read and the next page goes on from there. It reads on
   * past the page's last match, within the same bound, to count the matches (`matched`). (SQLite's FTS5 would match
   * words, not substrings.)
   * The scan runs on the one event loop that serves every request and every SMTP session, so it reads and tests about
   * SEARCH_SLICE_BYTES of text at a time and lets the loop run between slices: ten parallel
   * searches with a pathological `q` over 800 mails of 95 KB once held a GET 3.8 s, each request's 4 MB in one go.
   */
  private async searchMessages(inboxId: string, limit: number, after: string | undefined, filter: MessageFilter): Promise<MessagePage> {
    const found: string[] = [];
    let scanned = 0;
    let bytes = 0;
    let cursor = after;
    let more = false;
    let rowsPerSlice = FIRST_SLICE_ROWS;
    scan: for (;;) {
      const from = cursor;
      const rows = this.engine.read(() =>
        from
          ? this.engine.sql('SELECT id, subject, sender, body FROM message_search WHERE inbox_id = ? AND id < ? ORDER BY id DESC LIMIT ?').all(inboxId, from, rowsPerSlice)
          : this.engine.sql('SELECT id, subject, sender, body FROM message_search WHERE inbox_id = ? ORDER BY id DESC LIMIT ?').all(inboxId, rowsPerSlice),
      );
      let sliceBytes = 0;
      for (const row of rows) {
        if (scanned >= MAX_FILTER_SCAN_ITEMS || bytes >= MAX_FILTER_SCAN_BYTES) {
          more = true;
          break scan;
        }
        const fields = { subject: String(row.subject), sender: String(row.sender), text: String(row.body ?? '') };
        const size = fields.subject.length + fields.sender.length + fields.text.length;
        scanned++;
        bytes += size;
        sliceBytes += size;
        cursor = String(row.id);
        if (matches(fields, filter)) found.push(cursor);
      }
      if (rows.length < rowsPerSlice) break;
      rowsPerSlice = nextSliceRows(rows.length, sliceBytes);
      await yieldToLoop();
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

  putMessage(message: MessageRecord, inbox: InboxRoute, { nowEpoch, day, dailyLimit, storageLimit }: PutRules): Promise<'stored' | 'duplicate' | 'quota' | 'storage' | 'gone'> {
    const { engine } = this;
    return engine.write(() => {
      if (engine.sql('SELECT 1 FROM messages WHERE inbox_id = ? AND id = ?').get(inbox.id, message.id)) return 'duplicate' as const;
      const live = engine.sql('SELECT expires_at_epoch FROM inboxes WHERE id = ?').get(inbox.id);
      if (!live || !isLiveAt(Number(live.expires_at_epoch), nowEpoch)) return 'gone' as const;
      const used = engine.sql('SELECT emails FROM day_usage WHERE account_id = ? AND day = ?').get(inbox.account_id, day);
      if (used && Number(used.emails) >= dailyLimit) return 'quota' as const;
      const bytes = message.stored_bytes ?? 0;
      const stored = engine.sql('SELECT bytes FROM account_storage WHERE account_id = ?').get(inbox.account_id);
      if (storageLimit !== undefined && Number(stored?.bytes ?? 0) + bytes > storageLimit) return 'storage' as const;
      const summary: MessageSummary = summaryOf(message);
      engine.sql('INSERT INTO messages (inbox_id, id, summary, record) VALUES (?, ?, ?, ?)').run(inbox.id, message.id, JSON.stringify(summary), recordJson(message));
      insertSearchRow(engine.sql(INSERT_SEARCH_ROW), inbox.id, message);
      engine.sql('UPDATE inboxes SET message_count = message_count + 1, stored_bytes = stored_bytes + ? WHERE id = ?').run(bytes, inbox.id);
      engine
        .sql('INSERT INTO account_storage (account_id, bytes) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET bytes = bytes + excluded.bytes')
        .run(inbox.account_id, bytes);
      engine
        .sql('INSERT INTO day_usage (account_id, day, emails) VALUES (?, ?, 1) ON CONFLICT (account_id, day) DO UPDATE SET emails = emails + 1')
        .run(inbox.account_id, day);
      return 'stored' as const;
    }, false, (result) => {
      if (result !== 'stored') return;
      const key = `${inbox.account_id}|${day}`;
      const count = this.dayCounts.get(key);
      if (count !== undefined) this.dayCounts.set(key, count + 1);
      const bytes = this.storedBytes.get(inbox.account_id);
      if (bytes !== undefined) this.storedBytes.set(inbox.account_id, bytes + (message.stored_bytes ?? 0));
    });
  }

  deleteMessage(inboxId: string, messageId: string): Promise<boolean> {
    const { engine } = this;
    return engine.write(() => {
      const message = engine.sql("SELECT json_extract(record, '$.stored_bytes') AS bytes FROM messages WHERE inbox_id = ? AND id = ?").get(inboxId, messageId);
      if (!message) return false;
      engine.sql('DELETE FROM messages WHERE inbox_id = ? AND id = ?').run(inboxId, messageId);
      const bytes = Number(message.bytes ?? 0);
      // An inbox marked deleting gave its bytes back already.
      const inbox = engine.sql("SELECT account_id, json_extract(record, '$.deleting') AS deleting FROM inboxes WHERE id = ?").get(inboxId);
      engine.sql('UPDATE inboxes SET message_count = message_count - 1, stored_bytes = MAX(0, stored_bytes - ?) WHERE id = ?').run(bytes, inboxId);
      if (inbox && !inbox.deleting && bytes) subtractAccountBytes(engine, String(inbox.account_id), bytes);
      return true;
    }, false, this.bytesReleased);
  }

  async storageUsed(accountId: string): Promise<number> {
    this.engine.read(() => this.engine.checkExternalChange());
    const cached = this.storedBytes.get(accountId);
    if (cached !== undefined) return cached;
    const row = this.engine.read(() => this.engine.sql('SELECT bytes FROM account_storage WHERE account_id = ?').get(accountId));
    return remember(this.storedBytes, accountId, Number(row?.bytes ?? 0));
  }

  async releaseStorage(accountId: string, bytes: number): Promise<void> {
    const { engine } = this;
    await engine.write(() => subtractAccountBytes(engine, accountId, bytes), false, this.bytesReleased);
  }

  async usage(accountId: string, day: string): Promise<number> {
    this.engine.read(() => this.engine.checkExternalChange());
    const key = `${accountId}|${day}`;
    const cached = this.dayCounts.get(key);
    if (cached !== undefined) return cached;
    const row = this.engine.read(() => this.engine.sql('SELECT emails FROM day_usage WHERE account_id = ? AND day = ?').get(accountId, day));
    return remember(this.dayCounts, key, row ? Number(row.emails) : 0);
  }

  async inboxesExpiredBy(epoch: number): Promise<InboxRecord[]> {
    const rows = this.engine.read(() => this.engine.sql('SELECT record, message_count FROM inboxes WHERE expires_at_epoch <= ?').all(epoch));
    return rows.map((r) => ({ ...parse<InboxRecord>(r.record), message_count: Number(r.message_count) }));
  }
}
