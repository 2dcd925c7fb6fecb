/**
 * The embedded store's numbered migrations (lambdas/store/sqlite-migrations.ts): a data folder written by the version
 * before them (test/fixtures/embedded-data-folder-v0.sql, a dump of a folder that version made) opens, is brought to
 * the latest schema version, and everything in it reads back; an older folder (no search rows, claims without their
 * creation time) is migrated too; the folder's version is recorded, and a newer folder is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import { migrate, migrations } from '../../lambdas/store/sqlite-migrations';
import { DATABASE_FILE } from '../../lambdas/store/sqlite-store';
import { epochSeconds } from '../../lambdas/core/inbox';

const Driver = require('libsql') as new (file: string) => {
  exec(sql: string): void;
  prepare(sql: string): { all(...a: unknown[]): Record<string, unknown>[]; get(...a: unknown[]): Record<string, unknown> | undefined; run(...a: unknown[]): unknown };
  close(): void;
};

const V0_DUMP = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'embedded-data-folder-v0.sql'), 'utf8');
const INBOX = 'inb_legacy0000000000000000';

function legacyFolder(edit?: string): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-migrate-'));
  const db = new Driver(path.join(dataDir, DATABASE_FILE));
  db.exec(V0_DUMP);
  if (edit) db.exec(edit);
  db.close();
  return dataDir;
}

const open = (dataDir: string) => appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));

function schemaVersions(dataDir: string): number[] {
  const db = new Driver(path.join(dataDir, DATABASE_FILE));
  try {
    return db.prepare('SELECT version FROM schema_version ORDER BY version').all().map((r) => Number(r.version));
  } finally {
    db.close();
  }
}

describe('the embedded store opens a data folder from the version before numbered migrations', () => {
  const latest = migrations().length;

  it('numbers its migrations 001.. without a gap', () => {
    expect(migrations().map((m) => m.version)).toEqual(Array.from({ length: latest }, (_, i) => i + 1));
  });

  it.each([
    ['as that version left it', undefined],
    ['older still: no search rows, claims without their creation time', 'DROP TRIGGER message_search_follows_messages; DROP TABLE message_search; ALTER TABLE address_claims DROP COLUMN created_at;'],
  ])('%s: migrated to the latest version, and its inbox, messages, search, key, webhook and blobs read back', async (_, edit) => {
    const dataDir = legacyFolder(edit);
    try {
      const ctx = open(dataDir);
      const { inboxes, keys, webhooks, blobs } = ctx.stores;
      const inbox = await inboxes.getInbox(INBOX);
      expect(inbox).toMatchObject({ email: 'legacy@tempmail.dev', account_id: 'acc_legacy', message_count: 3 });
      const route = await inboxes.inboxForAddress('legacy@tempmail.dev');
      expect(route).toMatchObject({ id: INBOX, account_id: 'acc_legacy' });
      if (edit) expect(route!.created_at).toBeUndefined();
      else expect(route!.created_at).toBe(inbox!.created_at);
      const listed = await inboxes.listMessages(INBOX, 10);
      expect(listed.items.map((m) => m.subject).sort()).toEqual(['Legacy Ünïcode 0', 'Legacy Ünïcode 1', 'Legacy Ünïcode 2']);
      // The search rows (backfilled on the older folder): folded to lower case, as filters are (core/search.ts).
      expect((await inboxes.listMessages(INBOX, 10, undefined, { subject: 'legacy ünïcode 1' })).items.map((m) => m.subject)).toEqual(['Legacy Ünïcode 1']);
      expect((await inboxes.listMessages(INBOX, 10, undefined, { q: '482912' })).items.map((m) => m.subject)).toEqual(['Legacy Ünïcode 2']);
      expect(await inboxes.getMessage(INBOX, listed.items[0].id)).toMatchObject({ id: listed.items[0].id });
      expect(await keys.getKey('a'.repeat(64))).toMatchObject({ account_id: 'acc_legacy', plan: 'dev' });
      expect((await webhooks.accountWebhooks('acc_legacy')).map((w) => w.id)).toEqual(['wh_legacy']);
      expect(await blobs.list('inbound/')).toEqual(['inbound/legacy-mail-1']);
      expect(String(await blobs.get('inbound/legacy-mail-1'))).toContain('Subject: pending');
      // And it still takes writes: a new inbox (with its claim's creation time), a message.
      expect(await inboxes.createInbox({ ...inbox!, id: 'inb_new', email: 'new@tempmail.dev', message_count: 0 }, epochSeconds(Date.now()))).toBe(true);
      expect((await inboxes.inboxForAddress('new@tempmail.dev'))!.created_at).toBe(inbox!.created_at);
      await ctx.stores.close();
      expect(schemaVersions(dataDir)).toEqual(Array.from({ length: latest }, (_, i) => i + 1));
      // Opened again: nothing to apply, nothing applied twice.
      const again = open(dataDir);
      expect((await again.stores.inboxes.listMessages(INBOX, 10)).items).toHaveLength(3);
      await again.stores.close();
      expect(schemaVersions(dataDir)).toEqual(Array.from({ length: latest }, (_, i) => i + 1));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('applies each migration once, in its own transaction: one that fails leaves the version before it', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-migrate-'));
    const db = new Driver(path.join(dataDir, DATABASE_FILE));
    try {
      const all = migrations();
      const broken = [...all.slice(0, 2), { version: 3, name: '003-broken.sql', apply: (d: { exec(s: string): void }) => d.exec('CREATE TABLE half (x); SELECT * FROM no_such_table;') }];
      expect(() => migrate(db as never, broken as never)).toThrow(/003-broken.sql failed/);
      expect(db.prepare('SELECT MAX(version) AS v FROM schema_version').get()!.v).toBe(2);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").all()).toEqual([]);
      expect(migrate(db as never)).toBe(all.length);
    } finally {
      db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a folder from a newer version rather than write it with an older schema', () => {
    const dataDir = legacyFolder();
    try {
      open(dataDir).stores.close();
      const db = new Driver(path.join(dataDir, DATABASE_FILE));
      db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(999, '999-future.sql', new Date().toISOString());
      db.close();
      expect(() => open(dataDir)).toThrow(/schema version 999, newer than this version knows/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
