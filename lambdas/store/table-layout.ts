/**
 * The table's secondary index, stated once for the CDK table (lib/storage.ts), the local table (local/bootstrap.ts)
 * and the adapter that queries it. No SDK import: the CDK app loads this file.
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
