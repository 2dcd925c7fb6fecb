/** Local stack settings, from the environment (DESIGN §6). */
import path from 'node:path';
import { parseDomains } from '../lambdas/core/address';
import { AUTHORIZER_CACHE_SECONDS } from '../lambdas/core/gateway-responses';
import { isPlanName, type PlanName } from '../lambdas/core/plans';

export interface LocalConfig {
  host: string;
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
  /** An idle SMTP client is disconnected after this long. */
  smtpSocketTimeoutMs: number;
  /** Accepted mails being ingested at once; more wait before their 250 (backpressure). */
  ingestConcurrency: number;
  /** Print a fresh dev key when the store has none. */
  printDevKey: boolean;
}

const int = (value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`not a port number: ${value}`);
  return n;
};

export function parseSeedKeys(value: string | undefined): { plan: PlanName; key: string }[] {
  if (!value) return [];
  return value.split(',').map((pair) => {
    const [plan, key] = pair.split(':').map((s) => s.trim());
    if (!isPlanName(plan) || !key) throw new Error(`TEMPMAIL_SEED_KEYS: expected plan:key, got "${pair}"`);
    return { plan, key };
  });
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): LocalConfig {
  return {
    host: env.TEMPMAIL_HOST || '127.0.0.1',
    port: int(env.PORT, 3000),
    smtpPort: int(env.SMTP_PORT, 2525),
    dynamoPort: int(env.TEMPMAIL_DYNAMODB_PORT, 8766),
    s3Port: int(env.TEMPMAIL_S3_PORT, 4568),
    domains: parseDomains(env.TEMPMAIL_DOMAINS),
    dataDir: path.resolve(env.TEMPMAIL_DATA_DIR || '.tempmail'),
    seedKeys: parseSeedKeys(env.TEMPMAIL_SEED_KEYS),
    planOverrides: env.TEMPMAIL_PLAN_OVERRIDES || undefined,
    externalDynamoEndpoint: env.TEMPMAIL_DYNAMODB_ENDPOINT || undefined,
    externalS3Endpoint: env.TEMPMAIL_S3_ENDPOINT || undefined,
    bundleDir: env.TEMPMAIL_BUNDLE_DIR ? path.resolve(env.TEMPMAIL_BUNDLE_DIR) : undefined,
    sweepIntervalMs: Number(env.TEMPMAIL_SWEEP_INTERVAL_MS || 60_000),
    smtpSocketTimeoutMs: Number(env.TEMPMAIL_SMTP_SOCKET_TIMEOUT_MS || 60_000),
    ingestConcurrency: Math.max(1, Number(env.TEMPMAIL_INGEST_CONCURRENCY || 2)),
    authorizerCacheSeconds: Number(env.TEMPMAIL_AUTHORIZER_CACHE_SECONDS ?? AUTHORIZER_CACHE_SECONDS),
    printDevKey: env.TEMPMAIL_NO_DEV_KEY !== '1',
  };
}
