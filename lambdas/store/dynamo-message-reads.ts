/**
 * The reads of an inbox's messages on the DynamoDB table (DESIGN §4): a page of summaries newest first, the
 * messages since a cursor oldest first, and a bounded filter. Apart from dynamo-inbox-store.ts because this is the
 * one place that knows how a page of messages is bounded in reads (READ_ROUNDS) and what a filter reads.
 */
import { MAX_FILTER_SCAN_ITEMS } from '../core/limits';
import { MESSAGE_SUMMARY_FIELDS, type MessageSummary } from '../core/model';
import type { MessagePage, Page } from '../core/ports';
import { matches, searchFields, type MessageFilter } from '../core/search';
import { readPages, type Table } from './dynamo-items';
import { keys } from '../layout/table-layout';

/** The key condition of a Query over an inbox's messages (its partition's `MSG#` items, in id order). */
export const messageRange = (inboxId: string) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :msg)',
  ExpressionAttributeValues: { ':pk': keys.inbox(inboxId).pk, ':msg': 'MSG#' },
});

const projection = (fields: readonly string[]) => ({
  ProjectionExpression: fields.map((f) => `#${f}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(fields.map((f) => [`#${f}`, f])),
});
const summaryProjection = projection(MESSAGE_SUMMARY_FIELDS);
/** What a filter tests: the summary and the inline text (bodies stored in the bucket are not searched). */
const searchProjection = projection([...MESSAGE_SUMMARY_FIELDS, 'text']);

/** Query calls one page of messages may make (each reads at most 1 MB): a page costs at most ~4 MB of reads. */
export const READ_ROUNDS = 4;

/**
 * Follows LastEvaluatedKey: DynamoDB stops a Query after 1 MB of items read (counted before the projection, so
 * inline bodies count), and a page must not end early. Each call asks only for the items still missing, so at
 * most `want` items are read; past READ_ROUNDS calls the page ends short, with `more` set, and the next page goes
 * on from its last item. Summaries only, in key order from `start` (exclusive).
 */
async function readMessages(
  { db, table }: Table,
  inboxId: string,
  want: number,
  options: { forward: boolean; start?: string },
): Promise<{ items: MessageSummary[]; more: boolean }> {
  const items: MessageSummary[] = [];
  const start = options.start ? keys.message(inboxId, options.start) : undefined;
  const query = () => ({ TableName: table, ...messageRange(inboxId), ScanIndexForward: options.forward, Limit: want - items.length, ...summaryProjection });
  let round = 0;
  let startKey: Record<string, unknown> | undefined;
  for await (const page of readPages<MessageSummary>(db, { query }, start)) {
    items.push(...page.items);
    startKey = page.next;
    round++;
    if (items.length >= want) return { items, more: true };
    if (round >= READ_ROUNDS && items.length > 0 && startKey) return { items, more: true };
  }
  // A full read may end exactly at the last item with a LastEvaluatedKey still set: `more` can be a false alarm
  // (the next page is empty), never a miss.
  return { items, more: items.length >= want ? true : !!startKey };
}

/** InboxStore.listMessages: a page newest first, from `after` (exclusive), filtered when `filter` is given. */
export async function listMessages(at: Table, inboxId: string, limit: number, after?: string, filter?: MessageFilter): Promise<MessagePage> {
  if (filter) return searchMessages(at, inboxId, limit, after, filter);
  // One extra item tells whether another page exists, so a page that ends the list carries no cursor.
  const read = await readMessages(at, inboxId, limit + 1, { forward: false, start: after });
  const more = read.items.length > limit || read.more;
  const items = read.items.slice(0, limit);
  return { items, last: more && items.length ? items[items.length - 1].id : undefined };
}

/**
 * A bounded filter (core/limits.ts MAX_FILTER_SCAN_ITEMS): reads the inbox's items newest first, tests each in
 * the function (core/search.ts: DynamoDB's contains() is case-sensitive), and reads on past the page's last match
 * to count the matches (`matched`) until the inbox's end or the bound; a bound reached before the page is full
 * makes the last item read the cursor to go on from.
 */
async function searchMessages({ db, table }: Table, inboxId: string, limit: number, after: string | undefined, filter: MessageFilter): Promise<MessagePage> {
  const found: MessageSummary[] = [];
  let count = 0;
  let scanned = 0;
  let lastScanned: string | undefined;
  const query = () => ({ TableName: table, ...messageRange(inboxId), ScanIndexForward: false, Limit: Math.min(MAX_FILTER_SCAN_ITEMS - scanned, 250), ...searchProjection });
  for await (const page of readPages<MessageSummary & { text?: string }>(db, { query }, after ? keys.message(inboxId, after) : undefined)) {
    for (const item of page.items) {
      scanned++;
      lastScanned = item.id;
      if (!matches(searchFields(item), filter)) continue;
      const { text: _text, ...summary } = item;
      // Past the page, only the count is kept.
      if (found.length < limit) found.push(summary);
      count++;
    }
    // The bound: the count stops there (it may be right at the inbox's end: DynamoDB cannot tell without reading on).
    if (page.next && scanned >= MAX_FILTER_SCAN_ITEMS) {
      const matched = { count, exact: false };
      return { items: found, last: count > found.length ? found[found.length - 1].id : lastScanned, matched };
    }
  }
  const matched = { count, exact: true };
  return count > found.length ? { items: found, last: found[found.length - 1].id, matched } : { items: found, matched };
}

/** InboxStore.messagesSince: oldest first from `after` (exclusive). */
export async function messagesSince(at: Table, inboxId: string, after: string | undefined, limit: number): Promise<Page<MessageSummary>> {
  const read = await readMessages(at, inboxId, limit, { forward: true, start: after });
  return { items: read.items, last: read.more && read.items.length ? read.items[read.items.length - 1].id : undefined };
}
