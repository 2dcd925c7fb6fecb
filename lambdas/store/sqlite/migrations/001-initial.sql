-- The embedded store as it first shipped: inboxes, their address claims, messages, the day's usage per account,
-- API keys and blobs. IF NOT EXISTS: a data folder from before numbered migrations has these tables already.
CREATE TABLE IF NOT EXISTS inboxes (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  expires_at_epoch INTEGER NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS inboxes_by_account ON inboxes (account_id, id);
-- The inbox list's order (newest first): creation time, then id.
CREATE INDEX IF NOT EXISTS inboxes_by_account_created ON inboxes (account_id, json_extract(record, '$.created_at'), id);
CREATE INDEX IF NOT EXISTS inboxes_by_expiry ON inboxes (expires_at_epoch);
CREATE TABLE IF NOT EXISTS address_claims (
  address TEXT PRIMARY KEY,
  inbox_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  plan TEXT NOT NULL,
  expires_at_epoch INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (
  inbox_id TEXT NOT NULL,
  id TEXT NOT NULL,
  summary TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (inbox_id, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS day_usage (
  account_id TEXT NOT NULL,
  day TEXT NOT NULL,
  emails INTEGER NOT NULL,
  PRIMARY KEY (account_id, day)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS api_keys (
  key_hash TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  record TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blobs (
  key TEXT PRIMARY KEY,
  content BLOB NOT NULL,
  content_type TEXT NOT NULL,
  metadata TEXT
);
