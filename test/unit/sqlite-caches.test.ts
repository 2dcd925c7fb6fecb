/**
 * What the embedded store keeps in memory as the database's one writer (address routes, day counts, webhook lists)
 * and its group commit without savepoints: another connection's commit (the keys CLI, a test moving time) clears the
 * caches, so no read answers from a stale copy; and a write that throws inside a group undoes only itself.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import { Engine } from '../../lambdas/store/sqlite-engine';
import { DATABASE_FILE } from '../../lambdas/store/sqlite-store';
import { DAY, inboxRecord, message } from '../contract/contract';
import { epochSeconds } from '../../lambdas/core/inbox';

let dataDir: string;
beforeEach(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-caches-'))));
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));
/** How many times a statement of this text was prepared or fetched through Engine.sql since `spy` began. */
const statementsRun = (spy: jest.SpyInstance, text: string) => spy.mock.calls.filter(([called]) => called === text).length;
const open = () => appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));

it('answers routes, day counts and webhook lists from memory only until another connection commits', async () => {
  const stack = open();
  const other = open(); // a second process on the same folder
  try {
    const inbox = inboxRecord();
    expect(await stack.stores.inboxes.inboxForAddress(inbox.email)).toBeNull(); // cached as unknown
    expect(await stack.stores.inboxes.usage(inbox.account_id, DAY)).toBe(0); // cached
    expect(await stack.stores.webhooks.accountWebhooks(inbox.account_id)).toEqual([]); // cached

    expect(await other.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()))).toBe(true);
    expect(await other.stores.inboxes.putMessage(message(inbox, 0), inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 100 })).toBe('stored');
    await other.stores.webhooks.putWebhook({ id: 'wh_1', account_id: inbox.account_id, url: 'https://example.com/h', events: ['message.received'], status: 'active', created_at: DAY } as never, 10);

    expect(await stack.stores.inboxes.inboxForAddress(inbox.email)).toMatchObject({ id: inbox.id });
    expect(await stack.stores.inboxes.usage(inbox.account_id, DAY)).toBe(1);
    expect((await stack.stores.webhooks.accountWebhooks(inbox.account_id)).map((h) => h.id)).toEqual(['wh_1']);

    // Its own writes go through at commit: the count and the route follow without a read.
    expect(await stack.stores.inboxes.putMessage(message(inbox, 1), inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 100 })).toBe('stored');
    expect(await stack.stores.inboxes.usage(inbox.account_id, DAY)).toBe(2);
    await stack.stores.inboxes.markInboxDeleting(inbox, 1);
    expect((await stack.stores.inboxes.inboxForAddress(inbox.email))!.expires_at_epoch).toBe(1);
  } finally {
    await stack.stores.close();
    await other.stores.close();
  }
});

it('commits a group in one transaction; a write that throws undoes only itself', async () => {
  const engine = new Engine(path.join(dataDir, DATABASE_FILE));
  try {
    engine.db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
    const writes = ['a', 'b', 'a', 'c'].map((k) => engine.write(() => engine.sql('INSERT INTO t (k) VALUES (?)').run(k)));
    const settled = await Promise.allSettled(writes);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(engine.db.prepare('SELECT k FROM t ORDER BY k').all().map((r) => r.k)).toEqual(['a', 'b', 'c']);
    await engine.sync();
  } finally {
    engine.close();
  }
});

it('commits a lone write after a millisecond, and gathers writes over 4 ms while they keep coming', async () => {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
  const engine = new Engine(path.join(dataDir, DATABASE_FILE));
  try {
    engine.db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
    const put = (k: string) => engine.write(() => engine.sql('INSERT INTO t (k) VALUES (?)').run(k));
    const first = put('a'); // after a quiet spell
    await jest.advanceTimersByTimeAsync(1);
    await first;
    expect(engine.commits).toBe(1);
    // The next write comes under 4 ms after that commit: its group waits 4 ms, and takes the writes made meanwhile.
    const group = [put('b')];
    await jest.advanceTimersByTimeAsync(2);
    expect(engine.commits).toBe(1);
    group.push(put('c'), put('d'));
    await jest.advanceTimersByTimeAsync(2);
    await Promise.all(group);
    expect(engine.commits).toBe(2);
    // Quiet again (no commit in the last 4 ms): a millisecond.
    await jest.advanceTimersByTimeAsync(10);
    const lone = put('e');
    await jest.advanceTimersByTimeAsync(1);
    await lone;
    expect(engine.commits).toBe(3);
    expect(engine.db.prepare('SELECT count(*) AS n FROM t').get()).toMatchObject({ n: 5 });
  } finally {
    jest.useRealTimers();
    engine.close();
  }
});

it("reads the database's free pages (the free-space headroom's reclaimable bytes) again only after a commit", async () => {
  const stack = open();
  const other = open();
  const reads = jest.spyOn(Engine.prototype, 'sql');
  const freelistReads = () => statementsRun(reads, 'PRAGMA freelist_count');
  try {
    const inbox = inboxRecord();
    const reclaimable = () => stack.stores.reclaimableBytes!();
    await stack.stores.inboxes.inboxForAddress(inbox.email); // where the stack notices other connections' commits
    const before = reclaimable();
    const readsBefore = freelistReads();
    // At every RCPT and end of DATA: no commit since, no read.
    for (let i = 0; i < 5; i++) expect(reclaimable()).toBe(before);
    expect(freelistReads()).toBe(readsBefore);

    // Its own deletes free pages: seen at the next ask.
    expect(await stack.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()))).toBe(true);
    for (let i = 0; i < 200; i++) expect(await stack.stores.inboxes.putMessage(message(inbox, i), inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1_000 })).toBe('stored');
    await stack.stores.inboxes.deleteInbox(inbox);
    const freed = reclaimable();
    expect(freed).toBeGreaterThan(before);
    expect(freelistReads()).toBe(readsBefore + 1);

    // Another connection's commit (it takes free pages back) is seen once a read has noticed it.
    const second = inboxRecord();
    expect(await other.stores.inboxes.createInbox(second, epochSeconds(Date.now()))).toBe(true);
    for (let i = 0; i < 200; i++) expect(await other.stores.inboxes.putMessage(message(second, i), second, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1_000 })).toBe('stored');
    await stack.stores.inboxes.inboxForAddress(second.email);
    expect(reclaimable()).toBeLessThan(freed);
  } finally {
    reads.mockRestore();
    await stack.stores.close();
    await other.stores.close();
  }
});

it('asks SQLite for other connections\' commits once per input after askOncePerInput, and an input sees what was committed before it', async () => {
  const stack = open();
  const other = open();
  const asks = jest.spyOn(Engine.prototype, 'sql');
  const dataVersionAsks = () => statementsRun(asks, 'PRAGMA data_version');
  try {
    const inbox = inboxRecord();
    const inputArrived = stack.stores.askOncePerInput!();
    const answers = async () => [
      await stack.stores.inboxes.inboxForAddress(inbox.email),
      await stack.stores.inboxes.usage(inbox.account_id, DAY),
      (await stack.stores.webhooks.accountWebhooks(inbox.account_id)).map((h) => h.id),
    ];
    // One input (an RCPT, say) and every cached answer after it, as a mail's RCPT, end of DATA and ingest read them: one ask.
    inputArrived();
    let before = dataVersionAsks();
    for (let i = 0; i < 3; i++) expect(await answers()).toEqual([null, 0, []]);
    expect(dataVersionAsks()).toBe(before + 1);

    // Another connection commits; no input has arrived since, so nothing is asked and no client can have known of it.
    expect(await other.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()))).toBe(true);
    expect(await other.stores.inboxes.putMessage(message(inbox, 0), inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 100 })).toBe('stored');
    await other.stores.webhooks.putWebhook({ id: 'wh_1', account_id: inbox.account_id, url: 'https://example.com/h', events: ['message.received'], status: 'active', created_at: DAY } as never, 10);
    before = dataVersionAsks();
    expect(await answers()).toEqual([null, 0, []]);
    expect(dataVersionAsks()).toBe(before);

    // The next input (a client that may have seen that commit) asks once, and every answer from then on has it.
    inputArrived();
    inputArrived();
    expect(await answers()).toEqual([expect.objectContaining({ id: inbox.id }), 1, ['wh_1']]);
    expect(await answers()).toEqual([expect.objectContaining({ id: inbox.id }), 1, ['wh_1']]);
    expect(dataVersionAsks()).toBe(before + 1);
  } finally {
    asks.mockRestore();
    await stack.stores.close();
    await other.stores.close();
  }
});

it("asks data_version only when the WAL index header shows a commit since the last ask, by any connection", async () => {
  const stack = open();
  const other = open();
  const asks = jest.spyOn(Engine.prototype, 'sql');
  const dataVersionAsks = () => statementsRun(asks, 'PRAGMA data_version');
  try {
    const inbox = inboxRecord();
    const inputArrived = stack.stores.askOncePerInput!();
    const route = async () => {
      inputArrived();
      return (await stack.stores.inboxes.inboxForAddress(inbox.email))?.id ?? null;
    };
    expect(await route()).toBeNull();
    const before = dataVersionAsks();
    // Inputs with no commit anywhere since: the header alone answers.
    for (let i = 0; i < 5; i++) expect(await route()).toBeNull();
    expect(dataVersionAsks()).toBe(before);
    // Another connection's commit changes the header: asked, and seen.
    expect(await other.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()))).toBe(true);
    expect(await route()).toBe(inbox.id);
    expect(dataVersionAsks()).toBe(before + 1);
    // Its own commit changes the header too: asked once (it is no other's), then the header answers again.
    expect(await stack.stores.inboxes.putMessage(message(inbox, 0), inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 100 })).toBe('stored');
    for (let i = 0; i < 3; i++) expect(await route()).toBe(inbox.id);
    expect(dataVersionAsks()).toBe(before + 2);
    // A delete by the other connection is seen at the next input.
    await other.stores.inboxes.deleteInbox(inbox);
    expect(await route()).toBeNull();
  } finally {
    asks.mockRestore();
    await stack.stores.close();
    await other.stores.close();
  }
});

it("keeps SQLite's locks on the -shm file while any engine of the process is open on it (the header reads' descriptor is shared)", async () => {
  const file = path.join(dataDir, DATABASE_FILE);
  // Another process asks the kernel whether a write lock on the -shm's DMS byte (128) would conflict: it does while a
  // connection of this process is open (each holds a shared lock there), and no longer once all are closed.
  const dmsLocked = () =>
    execFileSync('python3', ['-c', `import fcntl, os, struct\nfd = os.open(${JSON.stringify(`${file}-shm`)}, os.O_RDWR)\nr = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 128, 1, 0))\nprint(struct.unpack('hhqqi', r)[0] != fcntl.F_UNLCK)`]).toString().trim() === 'True';
  const first = new Engine(file);
  const second = new Engine(file);
  first.db.exec('CREATE TABLE t (k TEXT)');
  first.checkExternalChange();
  second.checkExternalChange();
  expect(dmsLocked()).toBe(true);
  first.close(); // closing a descriptor of the -shm would drop every lock of the process on it
  expect(dmsLocked()).toBe(true);
  second.db.prepare('SELECT count(*) FROM t').get();
  second.close();
  expect(dmsLocked()).toBe(false);
});

it("answers an account's stored bytes from memory: added to at a stored message's commit, read again after bytes are taken off or another connection commits", async () => {
  const stack = open();
  const other = open();
  const sql = jest.spyOn(Engine.prototype, 'sql');
  const selects = () => statementsRun(sql, 'SELECT bytes FROM account_storage WHERE account_id = ?');
  const inbox = inboxRecord();
  const rules = () => ({ nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1_000, storageLimit: 1_000_000 });
  /** What storageUsed answers, and how many times it read the table (putMessage reads it too, inside its write). */
  const used = async () => {
    const before = selects();
    const bytes = await stack.stores.inboxes.storageUsed(inbox.account_id);
    return { bytes, reads: selects() - before };
  };
  try {
    expect(await stack.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()))).toBe(true);
    expect(await used()).toEqual({ bytes: 0, reads: 1 });
    expect(await used()).toEqual({ bytes: 0, reads: 0 }); // at every RCPT and end of DATA: no read
    expect(await stack.stores.inboxes.putMessage(message(inbox, 0, { stored_bytes: 700 }), inbox, rules())).toBe('stored');
    expect(await stack.stores.inboxes.putMessage(message(inbox, 1, { stored_bytes: 300 }), inbox, rules())).toBe('stored');
    expect(await stack.stores.inboxes.putMessage(message(inbox, 1, { stored_bytes: 300 }), inbox, rules())).toBe('duplicate');
    expect(await used()).toEqual({ bytes: 1_000, reads: 0 });

    expect(await stack.stores.inboxes.deleteMessage(inbox.id, message(inbox, 0).id)).toBe(true);
    expect(await used()).toEqual({ bytes: 300, reads: 1 });
    await stack.stores.inboxes.releaseStorage(inbox.account_id, 100);
    expect(await used()).toEqual({ bytes: 200, reads: 1 });

    expect(await other.stores.inboxes.putMessage(message(inbox, 2, { stored_bytes: 50 }), inbox, rules())).toBe('stored');
    expect(await used()).toEqual({ bytes: 250, reads: 1 });

    await stack.stores.inboxes.markInboxDeleting(inbox, 1);
    expect(await used()).toEqual({ bytes: 0, reads: 1 });
  } finally {
    sql.mockRestore();
    await stack.stores.close();
    await other.stores.close();
  }
});
