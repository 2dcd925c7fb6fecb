/**
 * Builds the Lambda bundles exactly as the CDK stack's NodejsFunctions build them (same options, lib/bundling.ts)
 * into dist/lambdas/<handler>.js, so the local stack can run what deploys: TEMPMAIL_BUNDLE_DIR=dist/lambdas.
 *
 *   npx tsx scripts/bundle-lambdas.ts [outDir]
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { deployedHandlers, esbuildOptions } from '../lib/bundling';
import { handlerEntry } from '../lib/functions';
import { RE2_WASM_FILE, RE2_WASM_NAME } from '../lib/re2-asset';
import { AUTHORIZER_HANDLER, INBOX_CLEANUP_HANDLER, INGEST_HANDLER, WEBHOOK_DISPATCHER_HANDLER, WEBHOOK_SENDER_HANDLER, DEPLOYED_ROUTES } from '../lambdas/layout/functions';

export const DEFAULT_BUNDLE_DIR = path.join(__dirname, '..', 'dist', 'lambdas');

export interface BuiltBundle {
  handler: string;
  file: string;
  bytes: number;
}

export async function bundleLambdas(outDir: string = DEFAULT_BUNDLE_DIR): Promise<BuiltBundle[]> {
  const handlers = deployedHandlers(DEPLOYED_ROUTES, [AUTHORIZER_HANDLER, INGEST_HANDLER, WEBHOOK_DISPATCHER_HANDLER, WEBHOOK_SENDER_HANDLER, INBOX_CLEANUP_HANDLER]);
  return Promise.all(
    handlers.map(async (handler) => {
      const file = path.join(outDir, `${handler}.js`);
      await build(esbuildOptions(handlerEntry(handler), file));
      if (DEPLOYED_ROUTES.some((r) => r.re2 && r.handler === handler)) fs.copyFileSync(RE2_WASM_FILE, path.join(path.dirname(file), RE2_WASM_NAME));
      return { handler, file, bytes: fs.statSync(file).size };
    }),
  );
}

if (require.main === module) {
  const outDir = path.resolve(process.argv[2] ?? DEFAULT_BUNDLE_DIR);
  const started = performance.now();
  bundleLambdas(outDir)
    .then((bundles) => {
      for (const b of bundles) console.log(`${(b.bytes / 1024).toFixed(1).padStart(8)} KB  ${path.relative(process.cwd(), b.file)}`);
      console.log(`${bundles.length} bundles in ${Math.round(performance.now() - started)} ms → ${outDir}`);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
