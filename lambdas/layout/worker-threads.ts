/**
 * Where a worker thread's script is, stated once for the local stack's threads (the mail parser's,
 * lambdas/ingest/parse-thread.ts; the embedded store's JSON reader, lambdas/store/json-read-thread.ts): in the npm
 * package, its compiled file beside the bundle (scripts/build-package.ts writes it to bin/, the bundle's __dirname);
 * in a clone, the TypeScript module through tsx's require hook, as the stack itself runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** A new worker running `module` (a .ts file's path) or, in the package, `bundled` beside the caller's bundle. */
export function startWorker(callerDir: string, module: string, bundled: string, name: string): Worker {
  const compiled = path.join(callerDir, bundled);
  if (fs.existsSync(compiled)) return new Worker(compiled, { name });
  const boot = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(module)});`;
  return new Worker(boot, { eval: true, name });
}
