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
import { evidenceFileFor } from './iam-evidence';
import type { StoreKind } from '../../lambdas/config/app-config';
import type { PlanName } from '../../lambdas/core/plans';
import type { Json } from './json';

export type Keys = Record<PlanName, string>;

export interface StackHandle {
  store: StoreKind;
  /** `aws-template`: `npm run start:aws`, the synthesized template (its store is dynamodb). */
  form: 'local' | 'aws-template';
  /** The template form's table and bucket (the local stack's are LOCAL_TABLE / LOCAL_BUCKET). */
  table?: string;
  bucket?: string;
  /** The template form's state file (its endpoints and the stack's outputs). */
  state?: Record<string, Json>;
  /** The template form's stack name and endpoints. */
  aws?: { stackName: string; templateFile: string; endpoints: { dynamodb: string; s3: string; sqs: string; controlPlane: string } };
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
  /** Default: aws-template in the jest project of that kind (TEMPMAIL_TEST_KIND), else local. */
  form?: 'local' | 'aws-template';
}

const ROOT = path.resolve(__dirname, '..', '..');
export const TEST_DOMAINS = ['tempmail.local', 'inbox.test', 'mailbox.test'];

export const newTestKeys = (): Keys => ({
  free: `tm_test_free_${randomBytes(12).toString('hex')}`,
  dev: `tm_test_dev_${randomBytes(12).toString('hex')}`,
  startup: `tm_test_startup_${randomBytes(12).toString('hex')}`,
  enterprise: `tm_test_enterprise_${randomBytes(12).toString('hex')}`,
});

/**
 * The arguments after `node` of an npm script that starts the stack (`start`, `start:aws`), its script path made
 * absolute: tests and benchmarks run the stack with exactly the flags a user's `npm start` gives it.
 */
export function npmStartCommand(script: 'start' | 'start:aws'): string[] {
  const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const [node, ...args] = scripts[script].split(/\s+/);
  if (node !== 'node') throw new Error(`package.json's ${script} script does not start with node: ${scripts[script]}`);
  return args.map((arg) => (arg.endsWith('.ts') ? path.join(ROOT, arg) : arg));
}

export async function startStack(options: StackOptions = {}): Promise<StackHandle> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-test-'));
  const keys = newTestKeys();
  // The jest project's kind, or (benchmarks) TEMPMAIL_STORE as `npm start` reads it.
  const form = options.form ?? (process.env.TEMPMAIL_TEST_KIND === 'aws-template' ? 'aws-template' : 'local');
  const store: StoreKind = form === 'aws-template' ? 'dynamodb' : (options.store ?? ((process.env.TEMPMAIL_TEST_KIND ?? process.env.TEMPMAIL_STORE) === 'dynamodb' ? 'dynamodb' : 'embedded'));
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
    // The mail checks' DNS: a loopback port where nothing listens, so no test asks the internet's DNS and the
    // authentication section answers temperror at once (test/unit/checks-auth.test.ts proves the verdicts).
    TEMPMAIL_CHECK_DNS: '127.0.0.1:1',
    // The template form's stand-in for DynamoDB's TTL, whose timing AWS does not bound: off in tests (an hour), so
    // that an expiry a test sets is not raced by a deletion; the tests of TTL itself set their own.
    ...(form === 'aws-template' ? { TEMPMAIL_TTL_INTERVAL_MS: '3600000' } : {}),
    // The template form's IAM evidence, for the run's unused-grant report (iam-evidence.ts), when the run collects it.
    ...(form === 'aws-template' && evidenceFileFor(dataDir) ? { TEMPMAIL_IAM_EVIDENCE: evidenceFileFor(dataDir)! } : {}),
    ...options.env,
  };
  let child: ChildProcess | undefined;
  let log = '';

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      // The node command line of `npm start` (package.json: its flags too), not the tsx CLI: the CLI runs the script in
      // a grandchild that a SIGKILL would orphan.
      // BENCH_STACK_NODE_ARGS adds node flags to the stack alone, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
      // The template form is `npm run start:aws` (local/aws/main.ts), started the same way.
      const command = npmStartCommand(form === 'aws-template' ? 'start:aws' : 'start');
      child = spawn(process.execPath, [...(process.env.BENCH_STACK_NODE_ARGS?.split(' ').filter(Boolean) ?? []), ...command], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // The template form may synthesize cdk.out first, then starts 25 functions. Each phase has its own limit: the
      // synth took 245 s once on a loaded machine, which left the start too little of one shared 300 s.
      const limit = form === 'aws-template' ? 300_000 : 60_000;
      const firstLimit = form === 'aws-template' ? 900_000 : limit;
      const fail = (what: string, ms: number) => () => reject(new Error(`local stack did not ${what} in ${ms / 1000} s:\n${log}`));
      let timer = setTimeout(fail('start', firstLimit), firstLimit);
      let synthesized = form !== 'aws-template';
      // A restart appends to the same log: only what this launch prints counts (the first launch's READY once let a
      // restart's first request race the stack's last start-up step: a 500 from esbuild's stopping service).
      const from = log.length;
      const onOutput = (chunk: Buffer) => {
        log += chunk.toString();
        const output = log.slice(from);
        // template.ts prints "synthesized in" after a synth; template-runner.ts then prints the template's path.
        if (!synthesized && /\[template\] (synthesized in|\/)/.test(output)) {
          synthesized = true;
          clearTimeout(timer);
          timer = setTimeout(fail('start after its template was ready', limit), limit);
        }
        if (output.includes('READY')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onOutput);
      child.stderr!.on('data', onOutput);
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
  const state = form === 'aws-template' ? JSON.parse(fs.readFileSync(path.join(dataDir, 'stack.json'), 'utf8')) : undefined;
  const handle: StackHandle = {
    store,
    form,
    table: state?.outputs?.TableName,
    bucket: state?.outputs?.BucketName,
    state,
    aws: state ? { stackName: state.stackName, templateFile: state.templateFile, endpoints: state.endpoints } : undefined,
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
