/**
 * What a use case runs against: storage behind the ports, settings, and a clock. `appContext(config)` is the one
 * place that builds it; the adapters behind it are chosen by the config's store kind:
 * - `dynamodb`: DynamoDB and S3 (a deployed function, or the local stack's DynamoDB Local + S3 server form);
 * - `embedded`: SQLite in the data folder (the local stack's default), loaded only when asked for, so that a
 *   Lambda bundle never loads the native binding.
 */
import type { AppConfig, Settings } from '../config/app-config';
import { configFromEnv } from '../config/app-config';
import type { DeliveryQueue, DomainEvents, SecretBox, Stores, WebhookSender } from '../core/ports';
import { HttpWebhookSender } from '../webhooks/http-sender';
import { SqsDeliveryQueue, StoreDeliveryQueue } from '../webhooks/queues';
import { FileKeySecretBox, KmsSecretBox } from '../webhooks/secret-box';

/** What webhook delivery runs on besides storage: the secret box, the delivery queue and the HTTP sender. */
export interface WebhookRuntime {
  secrets: SecretBox;
  queue: DeliveryQueue;
  sender: WebhookSender;
}

export interface AppContext {
  stores: Stores;
  settings: Settings;
  now: () => number;
  webhooks: WebhookRuntime;
  /** Set by the local stack (its dispatcher); absent on AWS, where the table's stream carries the same facts. */
  events?: DomainEvents;
}

const EMBEDDED_ADAPTER = ['..', 'store', 'sqlite-store'].join('/');

export function appContext(config: AppConfig, now: () => number = Date.now): AppContext {
  const { domains, plans, downloadUrlSeconds, deleteBudgetMs, webhooks, corsOrigin, viewerDir } = config;
  let stores: Stores;
  if (config.store.kind === 'embedded') {
    // Required by a name esbuild does not follow: a deployed bundle carries neither this adapter nor its native
    // binding (bundles run locally are handed the stack's installed context instead).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { openEmbeddedStores } = require(EMBEDDED_ADAPTER) as typeof import('../store/sqlite-store');
    stores = openEmbeddedStores(config.store);
  } else {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { awsStores } = require('../store') as typeof import('../store');
    stores = awsStores(config.store);
  }
  return { stores, settings: { domains, plans, downloadUrlSeconds, deleteBudgetMs, webhooks, corsOrigin, ...(viewerDir ? { viewerDir } : {}) }, now, webhooks: webhookRuntime(config, stores) };
}

function webhookRuntime(config: AppConfig, stores: Stores): WebhookRuntime {
  const { secrets, queue } = config.webhookRuntime;
  return {
    secrets: secrets.kind === 'file' ? new FileKeySecretBox(secrets.dataDir) : new KmsSecretBox(secrets.keyId),
    queue: queue.kind === 'store' ? new StoreDeliveryQueue(stores.webhooks) : new SqsDeliveryQueue(queue.url, queue.deadLetterUrl),
    sender: new HttpWebhookSender({ timeoutMs: config.webhooks.timeoutMs, allowPrivate: config.webhooks.allowPrivate }),
  };
}

/**
 * The context handlers run against. The local stack installs the one it built (shared by every handler it loads,
 * sources or bundles alike, through a process-wide symbol); a Lambda container builds its own from the environment
 * on first use.
 */
const SLOT = Symbol.for('tempmail.appContext');
type Slot = { [SLOT]?: AppContext };

export function installContext(ctx: AppContext | undefined): void {
  (globalThis as Slot)[SLOT] = ctx;
}

/** The context the local stack installed, if any; never builds one (for handlers that need no storage). */
export function installedContext(): AppContext | undefined {
  return (globalThis as Slot)[SLOT];
}

export function currentContext(): AppContext {
  return ((globalThis as Slot)[SLOT] ??= appContext(configFromEnv()));
}
