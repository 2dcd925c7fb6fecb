/**
 * The table's layout, stated once for the CDK table (lib/storage.ts), the local table (local/bootstrap.ts) and the
 * adapters: its TTL attribute and its secondary index. No SDK import: the CDK app loads this file.
 *
 * The TTL attribute is the inbox record's own expiry (`expires_at_epoch`): an inbox item, its address claim and its
 * messages carry the inbox's, so DynamoDB removes them together; usage items and webhook delivery records carry their
 * own purge time in it.
 */
import type { InboxRecord } from '../core/model';

export const TTL_ATTRIBUTE = 'expires_at_epoch' satisfies keyof InboxRecord;

/**
 *
 * `by_account` lists an account's inboxes newest first. Its keys are attributes every inbox item already carries
 * (`account_id`, `created_at`), so inboxes made before the index existed are in it too. API key items carry both
 * attributes as well and land in it; the adapter filters them out (an account has a handful of keys).
 */
export const ACCOUNT_INDEX = {
  name: 'by_account',
  partitionKey: 'account_id',
  sortKey: 'created_at',
} as const;
