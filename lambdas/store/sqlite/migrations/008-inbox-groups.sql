-- Inbox groups (GET and DELETE /v1/inboxes?group=): each inbox's group beside its record (NULL: none), and an index
-- for one group's inboxes in the list's order (newest first), holding only inboxes in a group.
ALTER TABLE inboxes ADD COLUMN inbox_group TEXT;
CREATE INDEX IF NOT EXISTS inboxes_by_group ON inboxes (account_id, inbox_group, json_extract(record, '$.created_at'), id) WHERE inbox_group IS NOT NULL;
