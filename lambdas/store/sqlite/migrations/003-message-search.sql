-- The folded fields the message filters test (core/search.ts), one row per message.
CREATE TABLE IF NOT EXISTS message_search (
  inbox_id TEXT NOT NULL,
  id TEXT NOT NULL,
  subject TEXT NOT NULL,
  sender TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (inbox_id, id)
) WITHOUT ROWID;
-- A message's search row goes with it, however the message is deleted (one, a batch, or its whole inbox).
CREATE TRIGGER IF NOT EXISTS message_search_follows_messages AFTER DELETE ON messages BEGIN
  DELETE FROM message_search WHERE inbox_id = old.inbox_id AND id = old.id;
END;
