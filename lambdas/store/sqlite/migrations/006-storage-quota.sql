-- The storage quota (plan storage_bytes): each inbox's stored bytes beside its message count, and each account's sum
-- of them (lambdas/store/sqlite-inbox-store.ts keeps both in the write that stores or deletes a message). Folders from
-- before start at zero: their messages count as nothing.
ALTER TABLE inboxes ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS account_storage (
  account_id TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL
) WITHOUT ROWID;
