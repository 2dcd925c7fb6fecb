/**
 * The storage ports' contract, one suite for every adapter set: the embedded store (SQLite) and the AWS adapters
 * (DynamoDB Local + the S3 server). What the use cases rely on is stated here once, so the two cannot drift.
 */
import { newInboxId } from '../../lambdas/core/ids';
import { epochSeconds, lifetime } from '../../lambdas/core/inbox';
import type { InboxRecord } from '../../lambdas/core/model';
import { blobKeys, type Stores } from '../../lambdas/core/ports';
import type { AppContext } from '../../lambdas/usecases/context';
import { createInbox, listInboxes, sweepExpired } from '../../lambdas/usecases/inboxes';
import { issueKey, revokeKey } from '../../lambdas/usecases/keys';
import { blobContract } from './blob-contract';
import { groupContract } from './group-contract';
import { DAY, inboxRecord, message, unique } from './records';

export { DAY, inboxRecord, message };

export interface Opened {
  ctx: AppContext;
  close(): Promise<void>;
}

export function storeContract(name: string, open: () => Promise<Opened>): void {
  describe(`the storage ports on ${name}`, () => {
    let opened: Opened;
    let stores: Stores;
    beforeAll(async () => {
      opened = await open();
      stores = opened.ctx.stores;
    }, 120_000);
    afterAll(() => opened?.close());

    describe('inboxes and address claims', () => {
      it('creates an inbox and its claim, reads both back', async () => {
        const inbox = inboxRecord();
        expect(await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()))).toBe(true);
        expect(await stores.inboxes.getInbox(inbox.id)).toEqual(inbox);
        expect(await stores.inboxes.inboxForAddress(inbox.email)).toEqual({
          id: inbox.id,
          email: inbox.email,
          account_id: inbox.account_id,
          plan: inbox.plan,
          expires_at_epoch: inbox.expires_at_epoch,
          created_at: inbox.created_at,
        });
        expect(await stores.inboxes.getInbox(newInboxId())).toBeNull();
        expect(await stores.inboxes.inboxForAddress(`${unique('none')}@tempmail.local`)).toBeNull();
      });

      it('lets exactly one of many concurrent creates for one address win', async () => {
        const email = `${unique('race')}@tempmail.local`;
        const results = await Promise.all(Array.from({ length: 25 }, () => stores.inboxes.createInbox(inboxRecord({ email }), epochSeconds(Date.now()))));
        expect(results.filter(Boolean)).toHaveLength(1);
        const claim = await stores.inboxes.inboxForAddress(email);
        expect(await stores.inboxes.getInbox(claim!.id)).not.toBeNull();
      });

      it('frees an address once its inbox has expired, and a newer inbox keeps its claim when the old one is deleted', async () => {
        const email = `${unique('reuse')}@tempmail.local`;
        const old = inboxRecord({ email, ...lifetime(Date.now() - 7_200_000, 3600) });
        expect(await stores.inboxes.createInbox(old, epochSeconds(Date.now()))).toBe(true);
        const newer = inboxRecord({ email });
        expect(await stores.inboxes.createInbox(newer, epochSeconds(Date.now()))).toBe(true);
        expect((await stores.inboxes.inboxForAddress(email))!.id).toBe(newer.id);
        await stores.inboxes.deleteInbox(old);
        expect((await stores.inboxes.inboxForAddress(email))!.id).toBe(newer.id);
        expect(await stores.inboxes.getInbox(old.id)).toBeNull();
      });

      it("counts an account's live inboxes up to a bound, leaving out expired, deleting and other accounts' ones", async () => {
        const account_id = unique('acct_count');
        const live = Array.from({ length: 4 }, () => inboxRecord({ account_id }));
        for (const inbox of live) expect(await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()))).toBe(true);
        await stores.inboxes.createInbox(inboxRecord({ account_id, ...lifetime(Date.now() - 7_200_000, 3600) }), epochSeconds(Date.now()));
        await stores.inboxes.createInbox(inboxRecord(), epochSeconds(Date.now()));
        const now = Math.floor(Date.now() / 1000);
        expect(await stores.inboxes.liveInboxCount(account_id, now, 100)).toBe(4);
        expect(await stores.inboxes.liveInboxCount(account_id, now, 3)).toBe(3);
        await stores.inboxes.markInboxDeleting(live[0], now - 1);
        expect(await stores.inboxes.liveInboxCount(account_id, now, 100)).toBe(3);
        expect(await stores.inboxes.liveInboxCount(unique('acct_none'), now, 100)).toBe(0);
      });

      it('lists inboxes expired by a time, and the sweep removes them with their objects', async () => {
        const expired = inboxRecord({ ...lifetime(Date.now() - 3 * 3_600_000, 3600) });
        const live = inboxRecord();
        await stores.inboxes.createInbox(expired, epochSeconds(Date.now()));
        await stores.inboxes.createInbox(live, epochSeconds(Date.now()));
        await stores.blobs.put(blobKeys.raw(expired.id, 'msg_x'), 'raw', 'message/rfc822');
        const due = await stores.inboxes.inboxesExpiredBy(Math.floor(Date.now() / 1000) - 3600);
        expect(due.map((i) => i.id)).toContain(expired.id);
        expect(due.map((i) => i.id)).not.toContain(live.id);
        await sweepExpired(opened.ctx);
        expect(await stores.inboxes.getInbox(expired.id)).toBeNull();
        expect(await stores.inboxes.inboxForAddress(expired.email)).toBeNull();
        expect(await stores.blobs.list(blobKeys.inbox(expired.id))).toEqual([]);
        expect(await stores.inboxes.getInbox(live.id)).not.toBeNull();
      });
    });

    describe("the use case's clock (one clock: the store judges by the time it is handed, not its own)", () => {
      // The wall clock and the use case's clock disagree here by hours, so a store reading its own clock answers
      // the opposite way.
      const HOUR_MS = 3_600_000;

      it('frees an address when its inbox has expired by the use case\'s clock, and holds it while live by that clock', async () => {
        const caller = { account_id: unique('acct_clock'), plan: 'enterprise' as const };
        const username = unique('clock');
        const start = Date.now();
        const first = await createInbox({ ...opened.ctx, now: () => start }, caller, { username, ttl: 3600 });
        // Two hours on by the use case's clock, the first inbox has expired: the address is free, though the wall
        // clock still has that inbox live.
        const later = await createInbox({ ...opened.ctx, now: () => start + 2 * HOUR_MS }, caller, { username, ttl: 3600 });
        expect(later.email).toBe(first.email);
        expect((await stores.inboxes.inboxForAddress(first.email))!.id).toBe(later.id);

        // An inbox expired by the wall clock is still live two hours back on the use case's clock: its address is held.
        const past = inboxRecord({ ...lifetime(start - 2 * HOUR_MS, 3600) });
        expect(await stores.inboxes.createInbox(past, epochSeconds(start - 2 * HOUR_MS))).toBe(true);
        const [name, domain] = past.email.split('@');
        const back = { ...opened.ctx, now: () => start - 2 * HOUR_MS + 60_000, settings: { ...opened.ctx.settings, domains: [domain] } };
        await expect(createInbox(back, { account_id: unique('acct_clock'), plan: 'enterprise' }, { username: name, ttl: 3600 })).rejects.toMatchObject({ status: 409 });
        expect(await stores.inboxes.createInbox(inboxRecord({ email: past.email }), epochSeconds(start))).toBe(true);
      });

      it("stores a message only while its inbox is live by the clock it is handed: 'gone' once expired by it", async () => {
        const inbox = inboxRecord();
        const now = Date.now();
        expect(await stores.inboxes.createInbox(inbox, epochSeconds(now))).toBe(true);
        const rules = (atMs: number) => ({ nowEpoch: epochSeconds(atMs), day: DAY, dailyLimit: 1000 });
        // Live by the wall clock for another hour, expired by the clock handed in.
        expect(await stores.inboxes.putMessage(message(inbox, 1), inbox, rules(now + 2 * HOUR_MS))).toBe('gone');
        expect(await stores.inboxes.putMessage(message(inbox, 1), inbox, rules(now))).toBe('stored');
        // Expired by the wall clock, live by a clock set back before its expiry.
        const expired = inboxRecord({ ...lifetime(now - 2 * HOUR_MS, 3600) });
        expect(await stores.inboxes.createInbox(expired, epochSeconds(now - 2 * HOUR_MS))).toBe(true);
        expect(await stores.inboxes.putMessage(message(expired, 1), expired, rules(now - 2 * HOUR_MS + 60_000))).toBe('stored');
        expect(await stores.inboxes.putMessage(message(expired, 2), expired, rules(now))).toBe('gone');
      });
    });

    describe('messages', () => {
      it('stores a message once: a second put of the same id is a duplicate, and counts move once', async () => {
        const inbox = inboxRecord();
        await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
        const m = message(inbox, 1);
        expect(await stores.inboxes.putMessage(m, inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1000 })).toBe('stored');
        expect(await stores.inboxes.putMessage(m, inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1000 })).toBe('duplicate');
        expect(await stores.inboxes.getMessage(inbox.id, m.id)).toEqual(m);
        expect((await stores.inboxes.getInbox(inbox.id))!.message_count).toBe(1);
        expect(await stores.inboxes.usage(inbox.account_id, DAY)).toBe(1);
      });

      it("answers 'gone' for an inbox that vanished or expired, and stores nothing", async () => {
        const missing = inboxRecord();
        expect(await stores.inboxes.putMessage(message(missing, 1), missing, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1000 })).toBe('gone');
        const expired = inboxRecord({ ...lifetime(Date.now() - 7_200_000, 3600) });
        await stores.inboxes.createInbox(expired, epochSeconds(Date.now()));
        expect(await stores.inboxes.putMessage(message(expired, 1), expired, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1000 })).toBe('gone');
        expect((await stores.inboxes.listMessages(expired.id, 10)).items).toEqual([]);
      });

      it('lists an account\'s inboxes newest first, also those created within one second, across pages', async () => {
        // created_at has whole seconds (expires_at - created_at is the ttl exactly): within one second the id decides.
        const caller = { account_id: unique('acct_'), plan: 'enterprise' as const };
        const second = Math.floor(Date.now() / 1000) * 1000;
        const made: string[] = [];
        for (const ms of [-1000, 1, 2, 130, 400, 401, 777, 998, 999]) {
          made.push((await createInbox({ ...opened.ctx, now: () => second + ms }, caller, {})).id);
        }
        const newestFirst = [...made].reverse();
        expect((await listInboxes(opened.ctx, caller, {})).inboxes.map((i) => i.id)).toEqual(newestFirst);
        const paged: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await listInboxes(opened.ctx, caller, { limit: 2, cursor });
          paged.push(...page.inboxes.map((i) => i.id));
          cursor = page.next_cursor;
        } while (cursor);
        expect(paged).toEqual(newestFirst);
      });

      it('holds the daily limit exactly under concurrent puts for one account', async () => {
        const account = unique('acct_');
        const inboxes = [inboxRecord({ account_id: account }), inboxRecord({ account_id: account })];
        for (const inbox of inboxes) await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
        const results = await Promise.all(Array.from({ length: 30 }, (_, i) => stores.inboxes.putMessage(message(inboxes[i % 2], i), inboxes[i % 2], { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 12 })));
        expect(results.filter((r) => r === 'stored')).toHaveLength(12);
        expect(results.filter((r) => r === 'quota')).toHaveLength(18);
        expect(await stores.inboxes.usage(account, DAY)).toBe(12);
        const counts = await Promise.all(inboxes.map(async (i) => (await stores.inboxes.getInbox(i.id))!.message_count));
        expect(counts[0] + counts[1]).toBe(12);
        expect(await stores.inboxes.usage(account, '2026-11-24')).toBe(0);
      });

      it("keeps the account's stored bytes with each message: refused past the storage limit, exactly, under concurrent puts", async () => {
        const account = unique('acct_bytes');
        const inboxes = [inboxRecord({ account_id: account }), inboxRecord({ account_id: account })];
        for (const inbox of inboxes) await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
        // 30 messages of 1,000 bytes against a limit of 12,500: exactly 12 fit, whatever the order.
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) => stores.inboxes.putMessage(message(inboxes[i % 2], i, { stored_bytes: 1_000 }), inboxes[i % 2], { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1_000, storageLimit: 12_500 })),
        );
        expect(results.filter((r) => r === 'stored')).toHaveLength(12);
        expect(results.filter((r) => r === 'storage')).toHaveLength(18);
        expect(await stores.inboxes.storageUsed(account)).toBe(12_000);
        // The day's count moved only for the stored ones.
        expect(await stores.inboxes.usage(account, DAY)).toBe(12);
        // One message larger than the whole limit: refused, nothing counted.
        const other = inboxRecord();
        await stores.inboxes.createInbox(other, epochSeconds(Date.now()));
        expect(await stores.inboxes.putMessage(message(other, 1, { stored_bytes: 5_000 }), other, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1_000, storageLimit: 4_999 })).toBe('storage');
        expect(await stores.inboxes.storageUsed(other.account_id)).toBe(0);
        expect(await stores.inboxes.storageUsed(unique('acct_none'))).toBe(0);
      });

      it("frees an account's stored bytes when a message is deleted, an inbox is marked deleting or removed, once each", async () => {
        const account = unique('acct_free');
        const [a, b, c] = [inboxRecord({ account_id: account }), inboxRecord({ account_id: account }), inboxRecord({ account_id: account })];
        for (const inbox of [a, b, c]) await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
        const put = (inbox: InboxRecord, n: number, bytes: number) => stores.inboxes.putMessage(message(inbox, n, { stored_bytes: bytes }), inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1_000, storageLimit: 1_000_000 });
        for (const [inbox, n, bytes] of [[a, 1, 100], [a, 2, 200], [b, 3, 1_000], [b, 4, 2_000], [c, 5, 10_000]] as const) expect(await put(inbox, n, bytes)).toBe('stored');
        expect(await stores.inboxes.storageUsed(account)).toBe(13_300);

        expect(await stores.inboxes.deleteMessage(a.id, message(a, 1).id)).toBe(true);
        expect(await stores.inboxes.storageUsed(account)).toBe(13_200);
        expect(await stores.inboxes.deleteMessage(a.id, message(a, 1).id)).toBe(false);
        expect(await stores.inboxes.storageUsed(account)).toBe(13_200);

        // A DELETE's steps: marked (its 3,000 bytes leave), marked again, its messages and the inbox removed: once.
        const now = Math.floor(Date.now() / 1000);
        await stores.inboxes.markInboxDeleting(b, now - 1);
        expect(await stores.inboxes.storageUsed(account)).toBe(10_200);
        await stores.inboxes.markInboxDeleting(b, now - 1);
        await stores.inboxes.deleteMessages(b.id, 100);
        await stores.inboxes.deleteInbox(b);
        expect(await stores.inboxes.storageUsed(account)).toBe(10_200);

        // An expired inbox removed by the sweep (never marked): its bytes leave with it.
        await stores.inboxes.deleteInbox(c);
        expect(await stores.inboxes.storageUsed(account)).toBe(200);
        // A removal no store call made (AWS: TTL), never below zero.
        await stores.inboxes.releaseStorage(account, 150);
        expect(await stores.inboxes.storageUsed(account)).toBe(50);
        await stores.inboxes.releaseStorage(account, 500);
        expect(await stores.inboxes.storageUsed(account)).toBe(0);
        // Room again: a message that did not fit before fits now.
        expect(await stores.inboxes.putMessage(message(a, 9, { stored_bytes: 900 }), a, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1_000, storageLimit: 1_000 })).toBe('stored');
      });

      it('pages newest first across pages, every message exactly once, and summaries only', async () => {
        const inbox = inboxRecord();
        await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
        const all = Array.from({ length: 23 }, (_, i) => message(inbox, i));
        await Promise.all(all.map((m) => stores.inboxes.putMessage(m, inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1e9 })));
        const seen: string[] = [];
        let after: string | undefined;
        let pages = 0;
        do {
          const page = await stores.inboxes.listMessages(inbox.id, 5, after);
          for (const item of page.items) expect(Object.keys(item).sort()).toEqual(['from', 'from_name', 'id', 'received_at', 'size', 'subject']);
          seen.push(...page.items.map((m) => m.id));
          after = page.last;
          pages++;
        } while (after);
        expect(seen).toEqual(all.map((m) => m.id).sort().reverse());
        expect(pages).toBeGreaterThanOrEqual(5);
        // messagesSince: oldest first, newer than `after`, paged the same way.
        const since: string[] = [];
        let from: string | undefined = all[9].id;
        do {
          const page = await stores.inboxes.messagesSince(inbox.id, from, 4);
          since.push(...page.items.map((m) => m.id));
          from = page.last;
        } while (from);
        expect(since).toEqual(all.map((m) => m.id).sort().slice(10));
      });

      it('deletes one message (the count drops) and then the inbox with everything in it', async () => {
        const inbox = inboxRecord();
        await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
        const [a, b] = [message(inbox, 1), message(inbox, 2)];
        await stores.inboxes.putMessage(a, inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1e9 });
        await stores.inboxes.putMessage(b, inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1e9 });
        expect(await stores.inboxes.deleteMessage(inbox.id, a.id)).toBe(true);
        expect(await stores.inboxes.deleteMessage(inbox.id, a.id)).toBe(false);
        expect((await stores.inboxes.getInbox(inbox.id))!.message_count).toBe(1);
        expect(await stores.inboxes.getMessage(inbox.id, a.id)).toBeNull();
        await stores.inboxes.deleteInbox((await stores.inboxes.getInbox(inbox.id))!);
        expect(await stores.inboxes.getInbox(inbox.id)).toBeNull();
        expect(await stores.inboxes.getMessage(inbox.id, b.id)).toBeNull();
        expect((await stores.inboxes.listMessages(inbox.id, 10)).items).toEqual([]);
        expect(await stores.inboxes.inboxForAddress(inbox.email)).toBeNull();
      });
    });

    describe('deleting in steps', () => {
      it('marks an inbox deleting (its address free at once), then removes its messages a batch at a time', async () => {
        const inbox = inboxRecord();
        await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
        await Promise.all(Array.from({ length: 7 }, (_, i) => stores.inboxes.putMessage(message(inbox, i), inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1e9 })));
        const past = Math.floor(Date.now() / 1000) - 7200;
        await stores.inboxes.markInboxDeleting(inbox, past);
        expect(await stores.inboxes.getInbox(inbox.id)).toMatchObject({ deleting: true, expires_at_epoch: past });
        // The address is free for a new inbox while the old one's messages are still there.
        expect(await stores.inboxes.createInbox(inboxRecord({ email: inbox.email }), epochSeconds(Date.now()))).toBe(true);
        expect((await stores.inboxes.inboxesExpiredBy(past + 1)).map((i) => i.id)).toContain(inbox.id);
        expect(await stores.inboxes.deleteMessages(inbox.id, 3)).toBe(3);
        expect(await stores.inboxes.deleteMessages(inbox.id, 3)).toBe(3);
        expect(await stores.inboxes.deleteMessages(inbox.id, 3)).toBe(1);
        expect(await stores.inboxes.deleteMessages(inbox.id, 3)).toBe(0);
        expect((await stores.inboxes.listMessages(inbox.id, 10)).items).toEqual([]);
      });
    });

    describe('keys', () => {
      it('issues, reads, lists and revokes keys by hash, never storing a key', async () => {
        const issued = await issueKey(opened.ctx, 'dev');
        const record = await stores.keys.getKey(issued.record.key_hash);
        expect(record).toEqual(issued.record);
        expect(JSON.stringify(await stores.keys.listKeys())).not.toContain(issued.key);
        expect((await stores.keys.listKeys()).map((k) => k.key_hash)).toContain(issued.record.key_hash);
        const revoked = await revokeKey(opened.ctx, issued.key);
        expect(revoked!.revoked_at).toEqual(expect.any(String));
        // Revoking again keeps the first time.
        expect((await revokeKey(opened.ctx, issued.record.key_hash))!.revoked_at).toBe(revoked!.revoked_at);
        expect(await stores.keys.revokeKey('0'.repeat(64), new Date().toISOString())).toBeNull();
        await expect(stores.keys.putKey(issued.record)).rejects.toThrow();
      });
    });

    groupContract(() => opened.ctx);
    blobContract(() => stores);
  });
}
