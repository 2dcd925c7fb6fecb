/**
 * Local stack settings, from the environment, validated once. The service's own config (store, domains, plans) is
 * derived from them by `serviceConfig`, the one config object the use cases run on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { appConfig, ConfigError, DEFAULT_STORE_KIND, STORE_KINDS, type AppConfig, type StoreKind } from '../lambdas/config/app-config';
import { parseDomains } from '../lambdas/core/address';
import { AUTHORIZER_CACHE_SECONDS } from '../lambdas/contract/gateway-responses';
import { isPlanName, loadPlans, type PlanName } from '../lambdas/core/plans';
import { DEFAULT_RETRY_SCHEDULE_SECONDS, DELIVERY_TIMEOUT_MS, parseRetrySchedule } from '../lambdas/core/webhook-retries';

export interface LocalConfig {
  /** `embedded` (SQLite in the data folder, the default) or `dynamodb` (DynamoDB Local + the S3 server). */
  store: StoreKind;
  host: string;
  /** The base URL clients reach the API on (download links start with it); default http://host:port. */
  publicUrl: string;
  port: number;
  smtpPort: number;
  dynamoPort: number;
  s3Port: number;
  domains: string[];
  dataDir: string;
  seedKeys: { plan: PlanName; key: string }[];
  planOverrides?: string;
  /** Use an already running DynamoDB Local / S3 server instead of starting one (CI services, fault tests). */
  externalDynamoEndpoint?: string;
  externalS3Endpoint?: string;
  /** Load esbuild bundles from here instead of the TypeScript sources (what deploys is what is tested). */
  bundleDir?: string;
  sweepIntervalMs: number;
  authorizerCacheSeconds: number;
  /**
   * Which keys the plans' token buckets throttle: `plan-keys` (the default) every key but the stack's dev key (the
   * local account, never limited, as Mailpit never limits), so that seeded keys and keys made with `--plan` keep
   * their plan's limits and a test of 429 stays possible; `all` (TEMPMAIL_RATE_LIMITS=on) the dev key too; `none`
   * (TEMPMAIL_RATE_LIMITS=off) no key at all (a CI pipeline sending bursts on seeded keys).
   */
  rateLimits: 'plan-keys' | 'all' | 'none';
  /** An idle SMTP client is disconnected after this long. */
  smtpSocketTimeoutMs: number;
  /** The SMTP tarpit's step (local/smtp.ts): past 3 refused recipients in a session, each further one waits n × this. */
  smtpTarpitStepMs: number;
  /**
   * The certificate the SMTP server offers with STARTTLS: the user's own pair (TEMPMAIL_SMTP_TLS_CERT and
   * TEMPMAIL_SMTP_TLS_KEY), else one made in the data folder on first start (local/smtp-tls.ts).
   */
  smtpTlsFiles?: { cert: string; key: string };
  /** AUTH PLAIN and LOGIN offered and any credentials accepted, as Mailpit does (TEMPMAIL_SMTP_AUTH=off: not offered). */
  smtpAuth: boolean;
  /** Mail to an address of our domains without an inbox creates one for the dev key's account (TEMPMAIL_CATCH_ALL=1). */
  catchAll: boolean;
  /** Accepted mails being ingested at once; more wait before their 250 (backpressure). */
  ingestConcurrency: number;
  /** LOG_LEVEL=DEBUG: a log line per mail received and stored; otherwise the SMTP server logs a summary each second. */
  logEachMail: boolean;
  /** Keep a dev key in `<data folder>/dev-key` (made when absent) and print it (TEMPMAIL_NO_DEV_KEY=1: neither). */
  printDevKey: boolean;
  webhooks: {
    /** Seconds before each retry (TEMPMAIL_WEBHOOK_RETRY_SCHEDULE replaces the default, e.g. `1,2,4`). */
    retryScheduleSeconds: readonly number[];
    /** Loopback, private addresses and http allowed (the default here; `0` applies the AWS rules). */
    allowPrivate: boolean;
    timeoutMs: number;
    /** Delivery attempts under way at once. */
    concurrency: number;
  };
  /** Access-Control-Allow-Origin of the API (`*` by default, or one origin). */
  corsOrigin?: string;
  /** DNS servers of the mail checks (TEMPMAIL_CHECK_DNS); absent: the system's resolver. */
  checkDns?: string;
  /** How long one DELETE of an inbox spends removing messages before it answers (the rest follows). */
  deleteBudgetMs?: number;
  /** Free space the data folder's filesystem keeps: below it new mail and API writes other than deletes are refused (local/free-space.ts). */
  minFreeBytes: number;
}

/** A port setting; 0 asks the system for a free port (the tests' stacks use it). */
const port = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new ConfigError(`${name}: not a port number: ${value} (0-65535, 0 for any free port)`);
  return n;
};

/** Plan overrides are checked at start-up, before the data folder is made: a typo must leave nothing behind. */
function planOverrides(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    loadPlans(value);
  } catch (error) {
    const message = (error as Error).message;
    throw new ConfigError(error instanceof SyntaxError ? `TEMPMAIL_PLAN_OVERRIDES: not valid JSON: ${message}` : message);
  }
  return value;
}

/**
 * What a seeded key must look like: a key anyone can guess (`dev:my-ci-key`) is an open door to every inbox of its
 * account, and a stack that listens beyond loopback serves it to anyone. 24 characters of letters, digits, `_` and
 * `-` at least, e.g. `tm_ci_$(openssl rand -hex 16)`.
 */
export const SEED_KEY_PATTERN = /^[A-Za-z0-9_-]{24,200}$/;

export function parseSeedKeys(value: string | undefined): { plan: PlanName; key: string }[] {
  if (!value) return [];
  return value.split(',').map((pair) => {
    const [plan, key] = pair.split(':').map((s) => s.trim());
    if (!isPlanName(plan) || !key) throw new ConfigError(`TEMPMAIL_SEED_KEYS: expected plan:key, got "${pair}"`);
    if (!SEED_KEY_PATTERN.test(key)) {
      throw new ConfigError(
        `TEMPMAIL_SEED_KEYS: the ${plan} key must be 24 to 200 characters of A-Z a-z 0-9 _ - (it has ${key.length}); make one with: echo tm_ci_$(openssl rand -hex 16)`,
      );
    }
    return { plan, key };
  });
}

const count = (value: string | undefined, fallback: number, name: string): number => {
  const n = Number(value || fallback);
  if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${name}: not a number: ${value}`);
  return n;
};

/** Whether `host` listens on every interface (TEMPMAIL_HOST=0.0.0.0 or ::). */
export const isWildcardHost = (host: string) => host === '0.0.0.0' || host === '::';

/** Where a client on this machine connects to a server listening on `host`: a wildcard is for listening, not for clients. */
export function reachableHost(host: string): string {
  return isWildcardHost(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): LocalConfig {
  const store = (env.TEMPMAIL_STORE || DEFAULT_STORE_KIND) as StoreKind;
  if (!STORE_KINDS.includes(store)) throw new ConfigError(`TEMPMAIL_STORE must be one of ${STORE_KINDS.join(', ')}, not "${env.TEMPMAIL_STORE}"`);
  const host = env.TEMPMAIL_HOST || '127.0.0.1';
  const apiPort = port('PORT', env.PORT, 3000);
  const reachable = reachableHost(host);
  return {
    store,
    host,
    publicUrl: (env.TEMPMAIL_PUBLIC_URL || `http://${reachable}:${apiPort}`).replace(/\/$/, ''),
    port: apiPort,
    smtpPort: port('SMTP_PORT', env.SMTP_PORT, 2525),
    dynamoPort: port('TEMPMAIL_DYNAMODB_PORT', env.TEMPMAIL_DYNAMODB_PORT, 8766),
    s3Port: port('TEMPMAIL_S3_PORT', env.TEMPMAIL_S3_PORT, 4568),
    domains: parseDomains(env.TEMPMAIL_DOMAINS),
    dataDir: path.resolve(env.TEMPMAIL_DATA_DIR || '.tempmail'),
    seedKeys: parseSeedKeys(env.TEMPMAIL_SEED_KEYS),
    planOverrides: planOverrides(env.TEMPMAIL_PLAN_OVERRIDES),
    externalDynamoEndpoint: env.TEMPMAIL_DYNAMODB_ENDPOINT || undefined,
    externalS3Endpoint: env.TEMPMAIL_S3_ENDPOINT || undefined,
    bundleDir: env.TEMPMAIL_BUNDLE_DIR ? path.resolve(env.TEMPMAIL_BUNDLE_DIR) : undefined,
    sweepIntervalMs: count(env.TEMPMAIL_SWEEP_INTERVAL_MS, 60_000, 'TEMPMAIL_SWEEP_INTERVAL_MS'),
    smtpSocketTimeoutMs: count(env.TEMPMAIL_SMTP_SOCKET_TIMEOUT_MS, 60_000, 'TEMPMAIL_SMTP_SOCKET_TIMEOUT_MS'),
    smtpTarpitStepMs: count(env.TEMPMAIL_SMTP_TARPIT_MS, 250, 'TEMPMAIL_SMTP_TARPIT_MS'),
    smtpTlsFiles: tlsFiles(env.TEMPMAIL_SMTP_TLS_CERT, env.TEMPMAIL_SMTP_TLS_KEY),
    smtpAuth: onOff(env.TEMPMAIL_SMTP_AUTH, true, 'TEMPMAIL_SMTP_AUTH'),
    catchAll: catchAll(env),
    ingestConcurrency: Math.max(1, count(env.TEMPMAIL_INGEST_CONCURRENCY, store === 'embedded' ? 16 : 2, 'TEMPMAIL_INGEST_CONCURRENCY')),
    logEachMail: (env.LOG_LEVEL ?? '').toUpperCase() === 'DEBUG',
    rateLimits: env.TEMPMAIL_RATE_LIMITS ? (onOff(env.TEMPMAIL_RATE_LIMITS, true, 'TEMPMAIL_RATE_LIMITS') ? 'all' : 'none') : 'plan-keys',
    authorizerCacheSeconds: count(env.TEMPMAIL_AUTHORIZER_CACHE_SECONDS, AUTHORIZER_CACHE_SECONDS, 'TEMPMAIL_AUTHORIZER_CACHE_SECONDS'),
    printDevKey: !noDevKey(env),
    webhooks: {
      retryScheduleSeconds: env.TEMPMAIL_WEBHOOK_RETRY_SCHEDULE ? schedule(env.TEMPMAIL_WEBHOOK_RETRY_SCHEDULE) : DEFAULT_RETRY_SCHEDULE_SECONDS,
      allowPrivate: flag(env.TEMPMAIL_WEBHOOK_ALLOW_PRIVATE, true, 'TEMPMAIL_WEBHOOK_ALLOW_PRIVATE'),
      timeoutMs: Math.max(1, count(env.TEMPMAIL_WEBHOOK_TIMEOUT_MS, DELIVERY_TIMEOUT_MS, 'TEMPMAIL_WEBHOOK_TIMEOUT_MS')),
      concurrency: Math.max(1, count(env.TEMPMAIL_WEBHOOK_CONCURRENCY, 32, 'TEMPMAIL_WEBHOOK_CONCURRENCY')),
    },
    corsOrigin: env.TEMPMAIL_CORS_ORIGIN || undefined,
    checkDns: env.TEMPMAIL_CHECK_DNS || undefined,
    minFreeBytes: count(env.TEMPMAIL_MIN_FREE_MB, 64, 'TEMPMAIL_MIN_FREE_MB') * 1024 * 1024,
    deleteBudgetMs: env.TEMPMAIL_DELETE_BUDGET_MS ? count(env.TEMPMAIL_DELETE_BUDGET_MS, 0, 'TEMPMAIL_DELETE_BUDGET_MS') : undefined,
  };
}

function schedule(value: string): number[] {
  try {
    return parseRetrySchedule(value);
  } catch (error) {
    throw new ConfigError(`TEMPMAIL_WEBHOOK_RETRY_SCHEDULE: ${(error as Error).message}`);
  }
}

/** TEMPMAIL_NO_DEV_KEY: 0 or 1 like every flag (`true` was once taken silently as 0). npm start and start:aws read it. */
export const noDevKey = (env: NodeJS.ProcessEnv): boolean => flag(env.TEMPMAIL_NO_DEV_KEY, false, 'TEMPMAIL_NO_DEV_KEY');

/** Catch-all mail goes to the dev key's account: a stack without one has nowhere to put it. */
function catchAll(env: NodeJS.ProcessEnv): boolean {
  const on = flag(env.TEMPMAIL_CATCH_ALL, false, 'TEMPMAIL_CATCH_ALL');
  if (on && noDevKey(env)) throw new ConfigError('TEMPMAIL_CATCH_ALL=1 delivers to the dev key\'s account: it cannot go with TEMPMAIL_NO_DEV_KEY=1');
  return on;
}

/** A certificate needs its key: both settings or neither. */
function tlsFiles(cert: string | undefined, key: string | undefined): { cert: string; key: string } | undefined {
  if (!cert && !key) return undefined;
  if (!cert || !key) throw new ConfigError(`TEMPMAIL_SMTP_TLS_CERT and TEMPMAIL_SMTP_TLS_KEY go together: set both (PEM files), or neither for the data folder's self-signed certificate`);
  const files = { cert: path.resolve(cert), key: path.resolve(key) };
  for (const [setting, file] of [['TEMPMAIL_SMTP_TLS_CERT', files.cert], ['TEMPMAIL_SMTP_TLS_KEY', files.key]]) {
    try {
      fs.accessSync(file, fs.constants.R_OK);
    } catch (error) {
      throw new ConfigError(`${setting}: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  return files;
}

function onOff(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  const v = value.toLowerCase();
  if (v !== 'on' && v !== 'off') throw new ConfigError(`${name} must be on or off, not "${value}"`);
  return v === 'on';
}

function flag(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (value !== '0' && value !== '1') throw new ConfigError(`${name} must be 0 or 1, not "${value}"`);
  return value === '1';
}

export const LOCAL_TABLE = 'tempmail';
export const LOCAL_BUCKET = 'tempmail';

/** Where the local stack builds the viewer: inside its data folder, so that stacks side by side never share it. */
let prebuiltViewer: string | undefined;
/**
 * The npm package ships the viewer built (scripts/build-package.ts): the stack then serves that folder instead of
 * building viewer/src into the data folder at start, which needs esbuild and the sources.
 */
export function usePrebuiltViewer(dir: string): void {
  prebuiltViewer = dir;
}
export const viewerIsPrebuilt = (): boolean => prebuiltViewer !== undefined;
export const viewerBuildDir = (dataDir: string) => prebuiltViewer ?? path.join(dataDir, 'viewer');

/**
 * The dev key's file: the local account's credential, kept for its user (mode 0600, in a folder that is 0700) so
 * that scripts read it (`KEY=$(cat .tempmail/dev-key)`). The store keeps only its hash, as for every key.
 */
export const devKeyFile = (dataDir: string) => path.join(dataDir, 'dev-key');

/** Writes the dev key's file whole (a temporary file renamed over it), mode 0600: `npm start` and start:aws alike. */
export function writeDevKeyFile(dataDir: string, key: string): string {
  const file = devKeyFile(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${key}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
  return file;
}

/** Where the SMTP server spools DATA past 1 MB: inside the data folder, emptied when the stack starts. */
export const smtpSpoolDir = (dataDir: string) => path.join(dataDir, 'smtp-spool');
/** The embedded form's inbound spool: mail past its 250 until it is stored, and then its raw mail (local/inbound-spool.ts). */
export { inboundSpoolDir } from '../lambdas/layout/inbound-spool-files';

/** The service config of this local stack; `endpoints` are the stand-ins' in the dynamodb form. */
export function serviceConfig(config: LocalConfig, endpoints?: { dynamodb: string; s3: string }): AppConfig {
  const store: AppConfig['store'] =
    config.store === 'embedded'
      ? { kind: 'embedded', dataDir: config.dataDir, publicUrl: config.publicUrl }
      : { kind: 'dynamodb', table: LOCAL_TABLE, bucket: LOCAL_BUCKET, endpoints };
  const { retryScheduleSeconds, allowPrivate, timeoutMs } = config.webhooks;
  return appConfig({
    store,
    domains: config.domains,
    planOverrides: config.planOverrides,
    corsOrigin: config.corsOrigin,
    checkDns: config.checkDns,
    deleteBudgetMs: config.deleteBudgetMs,
    viewerDir: viewerBuildDir(config.dataDir),
    webhooks: { retryScheduleSeconds, allowPrivate, timeoutMs, apiUrl: config.publicUrl },
    // Both local forms seal with the data folder's key and queue in the store (DynamoDB Local has no SQS beside it).
    webhookRuntime: { secrets: { kind: 'file', dataDir: config.dataDir }, queue: { kind: 'store' } },
  });
}
