/**
 * The one validated config object the service runs on, read from the environment in one place. A Lambda function
 * gets it from the variables CDK sets (TABLE_NAME, BUCKET_NAME, TEMPMAIL_DOMAINS); the local stack builds it from
 * its own settings (local/config.ts). Nothing else reads process.env for service behaviour.
 */
import * as z from 'zod/mini';
import { parseDomains } from '../core/address';
import { isDnsServer } from '../core/checks/authentication';
import { parseCorsOrigin } from '../contract/cors';
import { loadPlans, type Plan, type PlanName } from '../core/plans';
import { DEFAULT_RETRY_SCHEDULE_SECONDS, DELIVERY_TIMEOUT_MS } from '../core/webhook-retries';

export const STORE_KINDS = ['embedded', 'dynamodb'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];
/**
 * TEMPMAIL_STORE when it is not set, for every reader (this module's configFromEnv and the local stack's,
 * local/config.ts): the embedded store, `npm start`'s form. A deployed function is told `dynamodb` by its
 * environment (lib/functions.ts sets DEPLOYED_STORE, lambdas/layout/functions.ts), never by a default.
 */
export const DEFAULT_STORE_KIND: StoreKind = 'embedded';

export interface Settings {
  domains: string[];
  plans: Record<PlanName, Plan>;
  /** Lifetime of attachment and raw-mail download links, as S3 pre-signed URLs. */
  downloadUrlSeconds: number;
  /**
   * How long one DELETE of an inbox may spend removing its messages before it answers (the inbox is already gone
   * for its owner and its address free); a retried DELETE, the local sweep or DynamoDB's TTL finishes the rest.
   */
  deleteBudgetMs: number;
  /** Access-Control-Allow-Origin of every API response: `*` (the default) or one origin (contract/cors.ts). */
  corsOrigin: string;
  /**
   * Where the viewer's built files are (the local stack builds them at start). Absent in a deployed function,
   * whose bundle carries them beside its code (lib/viewer.ts).
   */
  viewerDir?: string;
  webhooks: WebhookSettings;
  /**
   * DNS servers the mail checks' authentication section asks (`ip` or `ip:port`, TEMPMAIL_CHECK_DNS, comma-separated);
   * empty: the system's resolver.
   */
  checkDnsServers: string[];
}

export interface WebhookSettings {
  /** Seconds before each retry; its length is the number of retries (lambdas/core/webhook-retries.ts has the default). */
  retryScheduleSeconds: readonly number[];
  /** An attempt without a complete answer by then failed. */
  timeoutMs: number;
  /** http and loopback/private destinations allowed: the local form's default, never on AWS. */
  allowPrivate: boolean;
  /** The API's base URL, for the link to the full message in payloads (a path alone without it). */
  apiUrl?: string;
}

/** Where webhook secrets are sealed and deliveries wait: lambdas/webhooks/ has the why of each. */
export interface WebhookRuntimeConfig {
  secrets: { kind: 'file'; dataDir: string } | { kind: 'kms'; keyId?: string };
  queue: { kind: 'store' } | { kind: 'sqs'; url?: string; deadLetterUrl?: string };
}

export interface EmbeddedStoreConfig {
  kind: 'embedded';
  /** The data folder: the SQLite database and the download-link signing secret. */
  dataDir: string;
  /** Base of the download links the local gateway serves (`http://host:port`). */
  publicUrl: string;
}

export interface AwsStoreConfig {
  kind: 'dynamodb';
  table: string;
  bucket: string;
  /** The local stand-ins (DynamoDB Local, the S3 server); absent on AWS. */
  endpoints?: { dynamodb: string; s3: string };
}

export interface AppConfig extends Settings {
  store: EmbeddedStoreConfig | AwsStoreConfig;
  webhookRuntime: WebhookRuntimeConfig;
}

const DOWNLOAD_URL_SECONDS = 900;
/** Well inside a route's 27 s (MAX_ROUTE_TIMEOUT_SECONDS), so the answer is never cut off. */
const DELETE_BUDGET_MS = 20_000;

const envSchema = z.object({
  TEMPMAIL_STORE: z.optional(z.enum(STORE_KINDS)),
  TEMPMAIL_DOMAINS: z.optional(z.string()),
  TEMPMAIL_PLAN_OVERRIDES: z.optional(z.string()),
  TABLE_NAME: z.optional(z.string().check(z.minLength(1))),
  BUCKET_NAME: z.optional(z.string().check(z.minLength(1))),
  TEMPMAIL_DATA_DIR: z.optional(z.string().check(z.minLength(1))),
  TEMPMAIL_PUBLIC_URL: z.optional(z.url()),
  WEBHOOK_KEY_ID: z.optional(z.string()),
  WEBHOOK_QUEUE_URL: z.optional(z.url()),
  WEBHOOK_DLQ_URL: z.optional(z.url()),
  TEMPMAIL_API_URL: z.optional(z.url()),
  TEMPMAIL_CORS_ORIGIN: z.optional(z.string()),
  TEMPMAIL_CHECK_DNS: z.optional(z.string()),
});

/** Thrown for a config that cannot work; the message names the setting. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * The config of a Lambda function (and of anything else configured by the environment alone). TEMPMAIL_STORE
 * defaults to DEFAULT_STORE_KIND like every reader's; CDK sets it to `dynamodb` in each function's environment.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${issue.path.join('.')}: ${issue.message}`);
  }
  const vars = parsed.data;
  const kind = vars.TEMPMAIL_STORE ?? DEFAULT_STORE_KIND;
  const store: AppConfig['store'] =
    kind === 'embedded'
      ? { kind, dataDir: required(vars.TEMPMAIL_DATA_DIR, 'TEMPMAIL_DATA_DIR'), publicUrl: required(vars.TEMPMAIL_PUBLIC_URL, 'TEMPMAIL_PUBLIC_URL') }
      : { kind, table: vars.TABLE_NAME ?? 'tempmail', bucket: vars.BUCKET_NAME ?? 'tempmail' };
  // A deployed function never delivers to private addresses: there is no setting that could allow it.
  const webhookRuntime: WebhookRuntimeConfig | undefined =
    kind === 'dynamodb' ? { secrets: { kind: 'kms', keyId: vars.WEBHOOK_KEY_ID }, queue: { kind: 'sqs', url: vars.WEBHOOK_QUEUE_URL, deadLetterUrl: vars.WEBHOOK_DLQ_URL } } : undefined;
  return appConfig({
    store,
    domains: vars.TEMPMAIL_DOMAINS,
    planOverrides: vars.TEMPMAIL_PLAN_OVERRIDES,
    webhooks: { allowPrivate: false, apiUrl: vars.TEMPMAIL_API_URL ?? (kind === 'embedded' ? vars.TEMPMAIL_PUBLIC_URL : undefined) },
    webhookRuntime,
    corsOrigin: vars.TEMPMAIL_CORS_ORIGIN,
    checkDns: vars.TEMPMAIL_CHECK_DNS,
  });
}

/** Validates and completes a config built in code (the local stack, the CLI, tests). */
export function appConfig(input: {
  store: AppConfig['store'];
  domains?: string | string[];
  planOverrides?: string;
  webhooks?: Partial<WebhookSettings>;
  /** Default: the data folder's key and the store's queue (embedded); KMS and SQS, unnamed (dynamodb). */
  webhookRuntime?: WebhookRuntimeConfig;
  corsOrigin?: string;
  viewerDir?: string;
  deleteBudgetMs?: number;
  /** TEMPMAIL_CHECK_DNS: comma-separated DNS servers for the mail checks. */
  checkDns?: string;
}): AppConfig {
  let plans: Record<PlanName, Plan>;
  let domains: string[];
  try {
    domains = parseDomains(Array.isArray(input.domains) ? input.domains.join(',') : input.domains);
    plans = loadPlans(input.planOverrides);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const webhooks: WebhookSettings = {
    retryScheduleSeconds: input.webhooks?.retryScheduleSeconds ?? DEFAULT_RETRY_SCHEDULE_SECONDS,
    timeoutMs: input.webhooks?.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    allowPrivate: input.webhooks?.allowPrivate ?? false,
    apiUrl: input.webhooks?.apiUrl,
  };
  const webhookRuntime: WebhookRuntimeConfig =
    input.webhookRuntime ??
    (input.store.kind === 'embedded'
      ? { secrets: { kind: 'file', dataDir: input.store.dataDir }, queue: { kind: 'store' } }
      : { secrets: { kind: 'kms' }, queue: { kind: 'sqs' } });
  const corsOrigin = parseCorsOrigin(input.corsOrigin);
  if (!corsOrigin) throw new ConfigError(`TEMPMAIL_CORS_ORIGIN must be * or one origin such as https://viewer.example.com, not "${input.corsOrigin}"`);
  return {
    store: input.store,
    domains,
    plans,
    downloadUrlSeconds: DOWNLOAD_URL_SECONDS,
    deleteBudgetMs: input.deleteBudgetMs ?? DELETE_BUDGET_MS,
    corsOrigin,
    ...(input.viewerDir ? { viewerDir: input.viewerDir } : {}),
    webhooks,
    webhookRuntime,
    checkDnsServers: parseDnsServers(input.checkDns),
  };
}

/** `ip` or `ip:port` (IPv6 in brackets when it has a port), comma-separated, as node's resolver takes them. */
function parseDnsServers(value: string | undefined): string[] {
  const servers = (value ?? '').split(',').map((v) => v.trim()).filter(Boolean);
  for (const server of servers) {
    if (!isDnsServer(server)) {
      throw new ConfigError(`TEMPMAIL_CHECK_DNS must list DNS server addresses (ip or ip:port), not "${server}"`);
    }
  }
  return servers;
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new ConfigError(`${name} is required with TEMPMAIL_STORE=embedded`);
  return value;
}
