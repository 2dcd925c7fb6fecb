/**
 * The table's layout, stated once for the CDK table and its stream filter (lib/storage.ts, lib/webhooks.ts), the local
 * table (local/bootstrap.ts) and the adapters that read and write it (lambdas/store/dynamo-*, the stream dispatcher):
 * its keys, its TTL and expiry attributes, its secondary index, and how an inbox item reads back. Outside the
 * adapters and free of SDK imports, because the CDK app loads this file and must load no adapter.
 */
import type { InboxRecord } from '../core/model';

/**
 * DynamoDB's TTL attribute: when the item may be removed (epoch seconds; TTL never deletes an item before it, and
 * usually within hours after). An inbox item, its address claim and its messages carry the inbox's removal time, its
 * expiry plus the removal grace (core/inbox.ts `removalEpoch`), so that an expired inbox answers "inbox expired" for
 * the whole grace and DynamoDB then removes all of them; usage items and webhook delivery records carry their own
 * purge time in it.
 *
 * Its name is older than this meaning: it used to hold the expiry itself. DynamoDB cannot move a live table's TTL to
 * another attribute in one update (disable, wait up to an hour, enable), so deployed tables keep the name, and the
 * expiry moved to EXPIRY_ATTRIBUTE. Items written before carry their expiry in this attribute and no
 * EXPIRY_ATTRIBUTE: the adapter reads that as their expiry, and TTL removes them at it, as it did.
 */
export const TTL_ATTRIBUTE = 'expires_at_epoch';
/** An inbox's expiry (epoch seconds) on its item and its address claim: what expiry tests compare. */
export const EXPIRY_ATTRIBUTE = 'expiry_epoch';

/**
 * `inboxes_by_account` lists an account's inboxes newest first (GET /v1/inboxes). It is sparse: its partition key
 * is an attribute only inbox items carry (`inbox_account_id`), so address claims, API keys and webhooks, which carry
 * `account_id` too, are not in it, and a page needs no filter. It projects what the list view shows (contract/views.ts
 * inboxView, and `deleting`, which hides an inbox being deleted), not the whole item, except `group`, which came after
 * it: a projection cannot change without replacing the index (two deploys), so a page of the account's list reads its
 * inboxes' groups from their items in one BatchGetItem (up to 100 small items, half a read unit each: at most 50
 * read units a page; docs/DEPLOY.md). A group's list knows its group.
 *
 * `message_count` is projected, so each message stored or deleted also writes the inbox's index copy: one write
 * unit more per message (the copy is under 1 KB), 13 instead of 12 for a message's ingest. Not projecting it would
 * cost every list page a BatchGetItem of up to 100 inboxes (50 read units) for the counts; lists are read more
 * often than an inbox's count changes in the uses this service is for (tests polling their inboxes), and the
 * stored count would be a second read path to keep right. Accepted, and in docs/DEPLOY.md's cost table.
 *
 * It replaced `by_account` (keys `account_id`, `created_at`, projecting ALL, which held claims, keys and
 * webhooks too). Inbox items written before carry no `inbox_account_id`: they are not listed (still readable,
 * receiving and expiring as ever) and are gone within the longest ttl a plan allows. LEGACY_ACCOUNT_INDEX is the
 * old index, kept by the CDK table only for the one intermediate deploy that upgrading a stack takes
 * (docs/DEPLOY.md: CloudFormation creates or deletes at most one index per update).
 */
export const ACCOUNT_INDEX = {
  name: 'inboxes_by_account',
  partitionKey: 'inbox_account_id',
  sortKey: 'created_at',
  projected: ['id', 'email', 'expires_at', EXPIRY_ATTRIBUTE, 'message_count', 'deleting'],
} as const;

/**
 * `inboxes_by_group` lists one group's inboxes newest first (GET and DELETE /v1/inboxes?group=). Sparse like the
 * account index: only inbox items created in a group carry its key, `<account id>#<group>` (groupIndexKey), so the
 * group is the account's own. It projects what the account index does: a grouped inbox's message stored or deleted
 * writes this copy too (one write unit more per message, for grouped inboxes only; docs/DEPLOY.md).
 */
export const GROUP_INDEX = {
  name: 'inboxes_by_group',
  partitionKey: 'inbox_group_key',
  sortKey: 'created_at',
  projected: ACCOUNT_INDEX.projected,
} as const;
export const groupIndexKey = (accountId: string, group: string): string => `${accountId}#${group}`;

/** The index keys an inbox item carries: the account index's always, the group index's when it is in a group. */
export const inboxIndexKeys = (inbox: Pick<InboxRecord, 'account_id' | 'group'>): Record<string, string> => ({
  [ACCOUNT_INDEX.partitionKey]: inbox.account_id,
  ...(inbox.group ? { [GROUP_INDEX.partitionKey]: groupIndexKey(inbox.account_id, inbox.group) } : {}),
});

/** Where a list of inboxes reads (GET /v1/inboxes): the account index, or with a group the group index; the same order and projection. */
export const listingIndex = (accountId: string, group?: string) =>
  group === undefined ? { index: ACCOUNT_INDEX, key: accountId } : { index: GROUP_INDEX, key: groupIndexKey(accountId, group) };

export const LEGACY_ACCOUNT_INDEX = { name: 'by_account', partitionKey: 'account_id', sortKey: 'created_at' } as const;

/** Every item's key: one table, generic `pk`/`sk` (DESIGN §4). */
export const keys = {
  inbox: (id: string) => ({ pk: `INBOX#${id}`, sk: 'INBOX' }),
  address: (address: string) => ({ pk: `ADDR#${address}`, sk: 'ADDR' }),
  message: (inboxId: string, messageId: string) => ({ pk: `INBOX#${inboxId}`, sk: `MSG#${messageId}` }),
  usage: (accountId: string, day: string) => ({ pk: `USAGE#${accountId}#${day}`, sk: 'USAGE' }),
  apiKey: (hash: string) => ({ pk: `KEY#${hash}`, sk: 'KEY' }),
  /** The bytes an account's messages hold (the plan's storage_bytes), in `bytes`. */
  storage: (accountId: string) => ({ pk: `STORAGE#${accountId}`, sk: 'STORAGE' }),
};

/** The sort keys the stream filter matches (lib/webhooks.ts) and the dispatcher checks again. */
export const MESSAGE_SK_PREFIX = keys.message('', '').sk;
export const INBOX_SK = keys.inbox('').sk;
/** Who DynamoDB names as the deleter of items its TTL removes. */
export const TTL_PRINCIPAL = 'dynamodb.amazonaws.com';

/** The expiry an inbox item or claim holds: items written before EXPIRY_ATTRIBUTE hold it in the TTL attribute. */
export const expiryOf = (item: Record<string, unknown>): number => (item[EXPIRY_ATTRIBUTE] ?? item[TTL_ATTRIBUTE]) as number;

/** The inbox an item (or a stream image of one) holds, without the table's attributes; null for no item. */
export function inboxFromItem(item: Record<string, unknown> | undefined): InboxRecord | null {
  if (!item) return null;
  const { pk: _pk, sk: _sk, [EXPIRY_ATTRIBUTE]: _expiry, [ACCOUNT_INDEX.partitionKey]: _account, [GROUP_INDEX.partitionKey]: _group, ...record } = item;
  return { ...(record as unknown as InboxRecord), expires_at_epoch: expiryOf(item) };
}
