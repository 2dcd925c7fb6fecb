/**
 * The embedded store's search lets the event loop run while it scans (issue 27 item 2): a request's scan of up to
 * MAX_FILTER_SCAN_BYTES of text is read and tested in slices of about SEARCH_SLICE_BYTES, with a turn of the loop
 * between two slices, so that other requests and SMTP sessions are served meanwhile. Counted in turns of the loop,
 * not in milliseconds: ten such searches once held an unrelated GET 3.8 s, each scan in one synchronous call.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import { epochSeconds } from '../../lambdas/core/inbox';
import { MAX_FILTER_SCAN_BYTES } from '../../lambdas/core/limits';
import { SEARCH_SLICE_BYTES } from '../../lambdas/store/sqlite-inbox-store';
import { DAY, inboxRecord, message } from '../contract/contract';
import { turnsDuring } from '../support/event-loop';

let dataDir: string;
beforeEach(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-search-slices-'))));
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it('scans a pathological query in slices, the loop turning between them, with the same page and bound as before', async () => {
  const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
  const { inboxes } = ctx.stores;
  try {
    const inbox = inboxRecord();
    const nowEpoch = epochSeconds(Date.now());
    await inboxes.createInbox(inbox, nowEpoch);
    const rowText = 'a'.repeat(95 * 1024);
    const count = 60;
    // Message 7 is the one match, far down the list (newest first): the scan reads past it to count the matches.
    await Promise.all(Array.from({ length: count }, (_, n) => inboxes.putMessage(message(inbox, n, { text: n === 7 ? `${rowText}b` : rowText }), inbox, { nowEpoch, day: DAY, dailyLimit: 1_000 })));
    const q = `${'a'.repeat(199)}b`;

    const whole = await turnsDuring(() => inboxes.listMessages(inbox.id, 10, undefined, { q }));
    // 60 rows of 95 KB exceed the request's text bound: it stops there, says so, and hands a cursor on.
    const rowsRead = Math.ceil(MAX_FILTER_SCAN_BYTES / (95 * 1024));
    expect(rowsRead).toBeLessThan(count);
    expect(whole.result.items).toEqual([]);
    expect(whole.result.matched).toEqual({ count: 0, exact: false });
    expect(whole.result.last).toBeDefined();
    // At most about SEARCH_SLICE_BYTES (plus one row) between two turns: the 4 MB scan took many turns, not one call.
    const slices = Math.ceil(MAX_FILTER_SCAN_BYTES / (SEARCH_SLICE_BYTES + 95 * 1024));
    expect(whole.turns).toBeGreaterThanOrEqual(slices - 1);

    // The next page goes on from the cursor and finds the match; it is exact, having reached the end of the inbox.
    const next = await turnsDuring(() => inboxes.listMessages(inbox.id, 10, whole.result.last, { q }));
    expect(next.result.items.map((m) => m.subject)).toEqual(['message 7']);
    expect(next.result.matched).toEqual({ count: 1, exact: true });
    expect(next.result.last).toBeUndefined();
    expect(next.turns).toBeGreaterThan(1);
  } finally {
    await ctx.stores.close();
  }
});
