/**
 * Address claims keep their inbox's creation time (InboxRoute.created_at). A data folder from before numbered
 * migrations may have the column already (the version before added it at every open), so it is added only when missing.
 */
import type { Database } from '../../sqlite-engine';

export function up(db: Database): void {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('address_claims').map((c) => String(c.name));
  if (!columns.includes('created_at')) db.exec('ALTER TABLE address_claims ADD COLUMN created_at TEXT');
}
