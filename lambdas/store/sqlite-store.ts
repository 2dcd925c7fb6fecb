/**
 * The embedded adapters: InboxStore, KeyStore, BlobStore and WebhookStore on one SQLite database in the data folder
 * (WAL mode, through `libsql`, which ships prebuilt binaries as npm packages), running inside the local stack's
 * process. This module opens the folder and wires them; each concern has its file:
 * - sqlite-engine.ts: the database, its statements, group commit and durability;
 * - sqlite-migrations.ts with sqlite/migrations/: the schema, as numbered migrations applied at open;
 * - sqlite-inbox-store.ts, sqlite-key-store.ts, sqlite-blob-store.ts, sqlite-webhook-store.ts: the ports;
 * - sqlite-blob-files.ts: large objects as files in the data folder's blobs/ folder;
 * - sqlite-held-segments.ts: raw mail kept where the inbound spool put it;
 * - sqlite-signed-links.ts: download links signed with the data folder's secret.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EmbeddedStoreConfig } from '../config/app-config';
import type { Stores } from '../core/ports';
import { Engine } from './sqlite-engine';
import { migrate } from './sqlite-migrations';
import { SqliteInboxStore } from './sqlite-inbox-store';
import { SqliteKeyStore } from './sqlite-key-store';
import { SqliteBlobStore } from './sqlite-blob-store';
import { SqliteWebhookStore } from './sqlite-webhook-store';
import { SignedLinks, signingSecret } from './sqlite-signed-links';
import { BLOB_FILES_DIR, BlobFiles } from './sqlite-blob-files';
import { JsonReadThread } from './json-read-thread';
import { HeldSegments } from './sqlite-held-segments';
import { inboundSpoolDir } from '../layout/inbound-spool-files';

export const DATABASE_FILE = 'tempmail.db';

/**
 * The database's free pages in bytes (space it reuses before it grows), asked for at every RCPT and end of DATA (the
 * free-space headroom, local/free-space.ts): read again only after a commit of this process or another connection's
 * (Engine.checkExternalChange), not twice per mail, which once took 9% of ingest's CPU.
 */
function reclaimableBytes(engine: Engine): () => number {
  const pageSize = engine.read(() => Number(engine.sql('PRAGMA page_size').get()?.page_size ?? 0));
  let readAt = -1;
  let free = 0;
  engine.onExternalChange(() => (readAt = -1));
  return () => {
    if (readAt !== engine.commits) {
      free = engine.read(() => Number(engine.sql('PRAGMA freelist_count').get()?.freelist_count ?? 0));
      readAt = engine.commits;
    }
    return free * pageSize;
  };
}

/** `warn`: where the stores tell what they could not do but carried on past (a blob file not removed). */
export function openEmbeddedStores(config: EmbeddedStoreConfig, warn: (message: string) => void): Stores {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const engine = new Engine(path.join(config.dataDir, DATABASE_FILE));
  migrate(engine.db);
  const files = new BlobFiles(path.join(config.dataDir, BLOB_FILES_DIR), warn);
  const jsonReader = new JsonReadThread();
  const named = (segment: number) => engine.read(() => engine.sql('SELECT 1 FROM blobs WHERE segment = ? LIMIT 1').get(segment)) !== undefined;
  const held = new HeldSegments(inboundSpoolDir(config.dataDir), named, warn);
  const blobs = new SqliteBlobStore(engine, new SignedLinks(signingSecret(config.dataDir), config.publicUrl), files, jsonReader, held);
  return {
    inboxes: new SqliteInboxStore(engine),
    keys: new SqliteKeyStore(engine),
    blobs,
    webhooks: new SqliteWebhookStore(engine),
    downloads: blobs,
    sync: () => engine.sync(),
    reclaimableBytes: reclaimableBytes(engine),
    askOncePerInput: () => engine.askOncePerInput(),
    sweepOrphanFiles: () => files.sweep(() => blobs.namedFiles()) + held.sweep(),
    releaseSpoolSegment: (segment) => held.release([segment]),
    highestSpoolSegment: async () => Number(engine.read(() => engine.sql('SELECT MAX(segment) AS highest FROM blobs WHERE segment IS NOT NULL').get())?.highest ?? 0),
    releaseObjectFiles: (prefix) => blobs.releaseFiles(prefix),
    async close() {
      // Let writes already queued commit first.
      await engine.write(() => undefined);
      engine.close();
      await jsonReader.close();
    },
  };
}
