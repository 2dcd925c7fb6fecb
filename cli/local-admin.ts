/**
 * Key administration on a local stack's data folder, running or stopped:
 * - embedded: the SQLite database is opened directly (WAL lets the CLI and a running stack share it);
 * - dynamodb: through the running stack's DynamoDB Local, or by starting DynamoDB Local on the folder for the
 *   length of the command.
 */
import fs from 'node:fs';
import path from 'node:path';
import { appConfig } from '../lambdas/config/app-config';
import { appContext } from '../lambdas/app/context';
import type { KeyContext } from '../lambdas/usecases/keys';
import { dataFolderKind, runningStackOf } from '../local/stack';

/** What the command worked on, for the line it prints on stderr. */
export interface LocalTarget {
  dataDir: string;
  kind: 'embedded' | 'dynamodb';
  /** False when the folder held no TempMail data before this command. */
  existed: boolean;
  running: boolean;
}

/**
 * Runs `work` with the key use cases' context on the local data folder, wherever its store is. `makeFolder`: a
 * folder that holds no TempMail data yet is made (keys create, before the first `npm start`); otherwise that is an
 * error, and nothing is written (a mistyped TEMPMAIL_DATA_DIR must not leave a database behind).
 */
/**
 * The data folder the key commands use without TEMPMAIL_DATA_DIR: `.tempmail` in this folder or the nearest folder
 * above it that has one holding TempMail data (npm start keeps it at the project's root, and a key made in a fresh
 * folder of a subfolder is one the running stack refuses); else `.tempmail` here, which keys create makes.
 */
export function defaultDataDir(cwd: string = process.cwd()): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, '.tempmail');
    if (dataFolderKind(candidate) !== null) return candidate;
    if (path.dirname(dir) === dir) return path.resolve(cwd, '.tempmail');
  }
}

export async function withLocalKeys<T>(dataDir: string, makeFolder: boolean, work: (ctx: KeyContext, target: LocalTarget) => Promise<T>): Promise<T> {
  const found = dataFolderKind(dataDir);
  if (!found && !makeFolder) throw new Error(`${dataDir} holds no TempMail data; is TEMPMAIL_DATA_DIR right? (keys create makes the folder)`);
  const kind = found ?? 'embedded';
  const stack = runningStackOf(dataDir);
  const endpoint = stack?.dynamodb ?? stack?.dynamoEndpoint;
  const target: LocalTarget = { dataDir, kind, existed: found !== null, running: stack !== null };
  if (kind === 'embedded') {
    if (!found) {
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(dataDir, 'store-kind'), 'embedded\n');
    }
    const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1' } }));
    try {
      return await work(ctx, target);
    } finally {
      await ctx.stores.close();
    }
  }
  // Required here: the embedded form never loads the AWS SDK clients.
  const { standInKeyStore } = require('../local/stand-ins') as typeof import('../local/stand-ins');
  const store = await standInKeyStore(dataDir, endpoint);
  try {
    return await work({ stores: { keys: store.keys }, now: Date.now }, target);
  } finally {
    await store.close();
  }
}
