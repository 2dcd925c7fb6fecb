/**
 * The table's layout, stated once for the CDK table (lib/storage.ts), the local table (local/bootstrap.ts) and the
 * adapters: its TTL attribute and its secondary index. No SDK import: the CDK app loads this file.
 */

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
