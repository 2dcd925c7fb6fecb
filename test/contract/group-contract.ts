/** Inbox groups' part of the storage contract (contract.ts): a group's list on its index, and its delete in steps. */
import { epochSeconds } from '../../lambdas/core/inbox';
import { blobKeys, type Stores } from '../../lambdas/core/ports';
import type { AppContext } from '../../lambdas/usecases/context';
import { createInbox, deleteInboxGroup, listInboxes } from '../../lambdas/usecases/inboxes';
import { DAY, message, unique } from './records';

export function groupContract(contextOf: () => AppContext): void {
  describe('inbox groups', () => {
    let opened: { ctx: AppContext };
    let stores: Stores;
    beforeAll(() => {
      opened = { ctx: contextOf() };
      stores = opened.ctx.stores;
    });

    it("lists one group's inboxes only, newest first, across pages; a group is the account's own", async () => {
      const caller = { account_id: unique('acct_'), plan: 'enterprise' as const };
      const other = { account_id: unique('acct_'), plan: 'enterprise' as const };
      const second = Math.floor(Date.now() / 1000) * 1000;
      const grouped: string[] = [];
      for (const ms of [-1000, 1, 2, 500]) grouped.push((await createInbox({ ...opened.ctx, now: () => second + ms }, caller, { group: 'Run-42' })).id);
      await createInbox(opened.ctx, caller, { group: 'run-43' });
      await createInbox(opened.ctx, caller, {});
      await createInbox(opened.ctx, other, { group: 'run-42' });
      expect((await stores.inboxes.getInbox(grouped[0]))!.group).toBe('run-42');
      const newestFirst = [...grouped].reverse();
      expect((await listInboxes(opened.ctx, caller, { group: 'RUN-42' })).inboxes.map((i) => i.id)).toEqual(newestFirst);
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await listInboxes(opened.ctx, caller, { group: 'run-42', limit: 3, cursor });
        paged.push(...page.inboxes.map((i) => i.id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(paged).toEqual(newestFirst);
      expect((await listInboxes(opened.ctx, caller, {})).inboxes).toHaveLength(6);
      expect((await listInboxes(opened.ctx, caller, { group: 'nobody' })).inboxes).toEqual([]);
    });

    it("deletes a group's inboxes (expired ones too) with their messages and objects, and nothing else; a request without budget still goes one step", async () => {
      const caller = { account_id: unique('acct_'), plan: 'enterprise' as const };
      const other = { account_id: unique('acct_'), plan: 'enterprise' as const };
      const made = [
        await createInbox(opened.ctx, caller, { group: 'ci' }),
        await createInbox(opened.ctx, caller, { group: 'ci' }),
        await createInbox({ ...opened.ctx, now: () => Date.now() - 7_200_000 }, caller, { group: 'ci', ttl: 3600 }),
      ];
      const kept = [await createInbox(opened.ctx, caller, {}), await createInbox(opened.ctx, other, { group: 'ci' })];
      for (const inbox of [...made, ...kept]) {
        const m = message(inbox, 1);
        await stores.inboxes.putMessage(m, inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1000 });
        await stores.blobs.put(m.raw_key, 'raw', 'message/rfc822');
      }
      expect(await deleteInboxGroup(opened.ctx, caller, 'CI')).toEqual({ deleted_count: 3, finished: true });
      for (const inbox of made) {
        expect(await stores.inboxes.getInbox(inbox.id)).toBeNull();
        expect(await stores.inboxes.listMessages(inbox.id, 10)).toEqual({ items: [] });
        expect(await stores.blobs.list(blobKeys.inbox(inbox.id))).toEqual([]);
      }
      for (const inbox of kept) expect((await stores.inboxes.getInbox(inbox.id))!.message_count).toBe(1);
      expect(await deleteInboxGroup(opened.ctx, caller, 'ci')).toEqual({ deleted_count: 0, finished: true });

      // No time at all: each request still takes one inbox a step (marked and emptied, then removed), so repeats finish.
      const broke = { ...opened.ctx, settings: { ...opened.ctx.settings, deleteBudgetMs: 0 } };
      const again = [await createInbox(opened.ctx, caller, { group: 'ci' }), await createInbox(opened.ctx, caller, { group: 'ci' })];
      for (const inbox of again) await stores.inboxes.putMessage(message(inbox, 1), inbox, { nowEpoch: epochSeconds(Date.now()), day: DAY, dailyLimit: 1000 });
      const steps = [];
      for (let i = 0; i < 10; i++) {
        steps.push(await deleteInboxGroup(broke, caller, 'ci'));
        if (steps[steps.length - 1].finished) break;
      }
      expect(steps[steps.length - 1].finished).toBe(true);
      expect(steps.length).toBeGreaterThan(1);
      expect(steps.reduce((sum, step) => sum + step.deleted_count, 0)).toBe(2);
      expect((await listInboxes(opened.ctx, caller, { group: 'ci' })).inboxes).toEqual([]);
    });
  });
}
