/** A message's row in message_search (the folded fields core/search.ts filters on): written at ingest and by migration 004. */
import type { MessageRecord } from '../core/model';
import { searchFields } from '../core/search';
import type { Statement } from './sqlite-engine';

export const INSERT_SEARCH_ROW = 'INSERT OR REPLACE INTO message_search (inbox_id, id, subject, sender, body) VALUES (?, ?, ?, ?, ?)';

export function insertSearchRow(insert: Statement, inboxId: string, message: MessageRecord): void {
  const fields = searchFields(message);
  insert.run(inboxId, message.id, fields.subject, fields.sender, fields.text);
}
