-- Webhooks, their delivery records (purged after their keep time, as DynamoDB's TTL does on AWS) and the local
-- form's delivery queue, so that a delivery waiting for a retry survives a restart.
CREATE TABLE IF NOT EXISTS webhooks (
  account_id TEXT NOT NULL,
  id TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (account_id, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  webhook_id TEXT NOT NULL,
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  expires_at_ms INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_expiry ON webhook_deliveries (expires_at_ms);
CREATE TABLE IF NOT EXISTS webhook_jobs (
  event_id TEXT PRIMARY KEY,
  due_at_ms INTEGER NOT NULL,
  job TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_jobs_by_due ON webhook_jobs (due_at_ms);
