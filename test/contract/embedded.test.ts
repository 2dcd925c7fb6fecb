/** The storage contract on the embedded store: SQLite in a fresh data folder, in this process. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import { DAY, inboxRecord, message, storeContract } from './contract';
import { epochSeconds } from '../../lambdas/core/inbox';

storeContract('the embedded store (SQLite)', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-contract-'));
  const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
  return {
    ctx,
    async close() {
      await ctx.stores.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

describe('the data folder', () => {
  it('is private to its owner: a folder it makes is 0700, the database and its WAL files 0600, whatever the umask', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-perms-'));
    const dataDir = path.join(parent, 'data');
    const umask = process.umask(0o002); // a permissive umask, as on many desktops
    try {
      const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
      await ctx.stores.keys.putKey({ key_hash: 'h'.repeat(64), account_id: 'acc_1', plan: 'dev', hint: 'tm_x…', created_at: new Date(0).toISOString() });
      const files = fs.readdirSync(dataDir).filter((f) => f.startsWith('tempmail.db'));
      expect(files).toEqual(expect.arrayContaining(['tempmail.db', 'tempmail.db-wal']));
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const file of files) expect([file, fs.statSync(path.join(dataDir, file)).mode & 0o777]).toEqual([file, 0o600]);
      await ctx.stores.close();
      // A database left readable by an older version is narrowed when it is opened.
      fs.chmodSync(path.join(dataDir, 'tempmail.db'), 0o644);
      const again = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
      expect(fs.statSync(path.join(dataDir, 'tempmail.db')).mode & 0o777).toBe(0o600);
      await again.stores.close();
    } finally {
      process.umask(umask);
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('the search rows', () => {
  it('go with their messages, however these are deleted: one, a batch, or the whole inbox', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-search-rows-'));
    const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
    const Driver = require('libsql') as new (file: string, options?: { readonly?: boolean }) => { prepare(sql: string): { get(...a: unknown[]): { n: number } }; close(): void };
    const db = new Driver(path.join(dataDir, 'tempmail.db'), { readonly: true });
    const searchRows = (inboxId: string) => db.prepare('SELECT count(*) AS n FROM message_search WHERE inbox_id = ?').get(inboxId).n;
    try {
      const inbox = inboxRecord();
      await ctx.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
      const messages = Array.from({ length: 5 }, (_, i) => message(inbox, i));
      for (const m of messages) expect(await ctx.stores.inboxes.putMessage(m, inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1000 })).toBe('stored');
      expect(searchRows(inbox.id)).toBe(5);
      expect(await ctx.stores.inboxes.deleteMessage(inbox.id, messages[0].id)).toBe(true);
      expect(searchRows(inbox.id)).toBe(4);
      expect(await ctx.stores.inboxes.deleteMessages(inbox.id, 2)).toBe(2);
      expect(searchRows(inbox.id)).toBe(2);
      await ctx.stores.inboxes.deleteInbox(inbox);
      expect(searchRows(inbox.id)).toBe(0);
    } finally {
      db.close();
      await ctx.stores.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a data folder from before claims kept the inbox creation time', () => {
  it('opens, routes its old claims without it, and keeps it for new ones', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-old-claims-'));
    const Driver = require('libsql') as new (file: string) => { exec(sql: string): void; close(): void };
    const old = new Driver(path.join(dataDir, 'tempmail.db'));
    old.exec(`CREATE TABLE address_claims (address TEXT PRIMARY KEY, inbox_id TEXT NOT NULL, account_id TEXT NOT NULL, plan TEXT NOT NULL, expires_at_epoch INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO address_claims VALUES ('old@tempmail.local', 'inbox_old', 'acct_old', 'dev', ${Math.floor(Date.now() / 1000) + 3600});`);
    old.close();
    const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
    try {
      expect(await ctx.stores.inboxes.inboxForAddress('old@tempmail.local')).toEqual(expect.not.objectContaining({ created_at: expect.anything() }));
      expect((await ctx.stores.inboxes.inboxForAddress('old@tempmail.local'))!.id).toBe('inbox_old');
      const inbox = inboxRecord();
      await ctx.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
      expect((await ctx.stores.inboxes.inboxForAddress(inbox.email))!.created_at).toBe(inbox.created_at);
    } finally {
      await ctx.stores.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
