/**
 * Messages stored before message_search existed get their search rows (the folding is core/search.ts's, in
 * JavaScript, so this migration is code). On a data folder whose messages all have rows it inserts nothing.
 */
import type { Database } from '../../sqlite-engine';
import { insertSearchRow } from '../../sqlite-search';
import type { MessageRecord } from '../../../core/model';

export function up(db: Database): void {
  const missing = db.prepare('SELECT m.inbox_id, m.record FROM messages m WHERE NOT EXISTS (SELECT 1 FROM message_search s WHERE s.inbox_id = m.inbox_id AND s.id = m.id)').all();
  const insert = db.prepare('INSERT OR REPLACE INTO message_search (inbox_id, id, subject, sender, body) VALUES (?, ?, ?, ?, ?)');
  for (const row of missing) insertSearchRow(insert, String(row.inbox_id), JSON.parse(String(row.record)) as MessageRecord);
}
