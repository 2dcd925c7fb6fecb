/**
 * Starts a real local stack (`local/main.ts`) in a child process on free ports with its own data directory,
 * exactly as `npm start` runs it, and hands tests its URLs and seeded keys.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../local/ports';
import type { StoreKind } from '../../lambdas/config/app-config';
import type { PlanName } from '../../lambdas/core/plans';

export type Keys = Record<PlanName, string>;

export interface StackHandle {
  store: StoreKind;
  apiUrl: string;
  smtpPort: number;
  /** The stand-ins (dynamodb form only). */
  dynamoEndpoint?: string;
  s3Endpoint?: string;
  dataDir: string;
  keys: Keys;
  domains: string[];
  /** The stack's process id (for memory readings). */
  pid(): number;
  /** Everything the stack printed (stdout and stderr), for log inspection. */
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL: a crash, no clean-up. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data. */
  restart(): Promise<void>;
}

export interface StackOptions {
  /** Default: the kind of the jest project running (TEMPMAIL_TEST_KIND), else embedded. */
  store?: StoreKind;
  env?: Record<string, string>;
  dataDir?: string;
}

const ROOT = path.resolve(__dirname, '..', '..');
export const TEST_DOMAINS = ['tempmail.local', 'inbox.test', 'mailbox.test'];

export const newTestKeys = (): Keys => ({
  free: `tm_test_free_${randomBytes(12).toString('hex')}`,
  dev: `tm_test_dev_${randomBytes(12).toString('hex')}`,
  startup: `tm_test_startup_${randomBytes(12).toString('hex')}`,
  enterprise: `tm_test_enterprise_${randomBytes(12).toString('hex')}`,
});

export async function startStack(options: StackOptions = {}): Promise<StackHandle> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-test-'));
  const keys = newTestKeys();
  // The jest project's kind, or (benchmarks) TEMPMAIL_STORE as `npm start` reads it.
  const store: StoreKind = options.store ?? ((process.env.TEMPMAIL_TEST_KIND ?? process.env.TEMPMAIL_STORE) === 'dynamodb' ? 'dynamodb' : 'embedded');
  const [port, smtpPort, dynamoPort, s3Port] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPMAIL_STORE: store,
    PORT: String(port),
    SMTP_PORT: String(smtpPort),
    TEMPMAIL_DYNAMODB_PORT: String(dynamoPort),
    TEMPMAIL_S3_PORT: String(s3Port),
    TEMPMAIL_DATA_DIR: dataDir,
    TEMPMAIL_DOMAINS: TEST_DOMAINS.join(','),
    TEMPMAIL_SEED_KEYS: Object.entries(keys).map(([plan, key]) => `${plan}:${key}`).join(','),
    TEMPMAIL_NO_DEV_KEY: '1',
    // Tests revoke keys and expect the next request to see it; the cache itself is exercised by the benchmark.
    TEMPMAIL_AUTHORIZER_CACHE_SECONDS: '0',
    ...options.env,
  };
  let child: ChildProcess | undefined;
  let log = '';

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      // `node --require tsx/cjs` as `npm start` runs it, not the tsx CLI: the CLI runs the script in a grandchild that a
      // SIGKILL would orphan.
      // BENCH_STACK_NODE_ARGS adds node flags to the stack alone, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
      child = spawn(process.execPath, [...(process.env.BENCH_STACK_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--require', 'tsx/cjs', path.join(ROOT, 'local', 'main.ts')], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const timer = setTimeout(() => reject(new Error(`local stack did not start in 60 s:\n${log}`)), 60_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('READY')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`local stack exited with ${code} before it was ready:\n${log}`));
      });
    });

  const waitExit = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });

  await launch();
  const standIns = store === 'dynamodb';
  const handle: StackHandle = {
    store,
    apiUrl: `http://127.0.0.1:${port}`,
    smtpPort,
    dynamoEndpoint: standIns ? (options.env?.TEMPMAIL_DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${dynamoPort}`) : undefined,
    s3Endpoint: standIns ? (options.env?.TEMPMAIL_S3_ENDPOINT ?? `http://127.0.0.1:${s3Port}`) : undefined,
    dataDir,
    keys,
    domains: TEST_DOMAINS,
    output: () => log,
    pid: () => child!.pid!,
    stop: () => waitExit('SIGTERM'),
    async kill() {
      await waitExit('SIGKILL');
      // The guard around java notices its parent is gone; give it a moment to free the port.
      await new Promise((r) => setTimeout(r, 500));
    },
    restart: launch,
  };
  return handle;
}
