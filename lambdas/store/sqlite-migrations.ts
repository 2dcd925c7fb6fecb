/**
 * The embedded database's schema, versioned: each change is a numbered file in sqlite/migrations/ (`NNN-name.sql`,
 * or `NNN-name.ts` exporting `up(db)` when it needs code), applied once, in order, each in a transaction of its own
 * that also records it in `schema_version`. Opening a data folder brings it up to date; a folder from a newer
 * version is refused rather than written with an older schema.
 *
 * Data folders from before numbered migrations have no `schema_version`: every migration runs on them, so the first
 * ones are written to be no-ops on what that version made (CREATE ... IF NOT EXISTS, a column added when missing).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from './sqlite-engine';

export const MIGRATIONS_DIR = path.join(__dirname, 'sqlite', 'migrations');
const FILE = /^(\d{3})-[a-z0-9-]+\.(sql|ts|js)$/;

export interface Migration {
  version: number;
  name: string;
  apply(db: Database): void;
}

/** The migrations in the folder, by version; a gap or a repeated number is a packaging fault, refused. */
export function migrations(dir = MIGRATIONS_DIR): Migration[] {
  const found = fs
    .readdirSync(dir)
    .filter((name) => FILE.test(name) && !name.endsWith('.d.ts'))
    .map((name) => ({ name, version: Number(FILE.exec(name)![1]), file: path.join(dir, name) }))
    .sort((a, b) => a.version - b.version);
  found.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`schema migrations: expected ${String(i + 1).padStart(3, '0')}-*, found ${m.name}`);
  });
  return found.map(({ name, version, file }) => ({
    version,
    name,
    apply: name.endsWith('.sql')
      ? (db) => db.exec(fs.readFileSync(file, 'utf8'))
      : // eslint-disable-next-line @typescript-eslint/no-require-imports -- a numbered migration file, found by listing the folder at run time
        (db) => (require(file) as { up(db: Database): void }).up(db),
  }));
}

const versionOf = (db: Database) => Number(db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_version').get()?.v ?? 0);

/** Applies what the database lacks; returns its version after. */
export function migrate(db: Database, all: Migration[] = migrations()): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const latest = all.length ? all[all.length - 1].version : 0;
  if (versionOf(db) > latest) throw new Error(`the data folder's database is at schema version ${versionOf(db)}, newer than this version knows (${latest}): use a newer TempMail`);
  for (const migration of all) {
    if (migration.version <= versionOf(db)) continue;
    // IMMEDIATE: another process opening the same folder (the keys CLI) waits here, then finds it done.
    db.exec('BEGIN IMMEDIATE');
    try {
      if (migration.version > versionOf(db)) {
        migration.apply(db);
        db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString());
      }
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw new Error(`schema migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  return versionOf(db);
}
