/**
 * What every form of the context shares once its storage is chosen: the settings, the clock and the webhook runtime
 * (sealed secrets, the delivery queue, the SSRF-safe sender). Loads no storage adapter, so the embedded form built on
 * it loads no AWS SDK client (lambdas/app/context.ts) and a Lambda bundle no SQLite (lambdas/app/aws-context.ts).
 */
import type { AppConfig } from '../config/app-config';
import type { Stores } from '../core/ports';
import type { AppContext, WebhookRuntime } from '../usecases/context';
import { HttpWebhookSender } from '../webhooks/http-sender';
import { SqsDeliveryQueue, StoreDeliveryQueue } from '../webhooks/queues';
import { FileKeySecretBox, KmsSecretBox } from '../webhooks/secret-box';

/** The context on the given stores: what every form shares once its storage is chosen. */
export function contextOn(config: AppConfig, stores: Stores, now: () => number): AppContext {
  const { domains, plans, downloadUrlSeconds, deleteBudgetMs, webhooks, corsOrigin, viewerDir, checkDnsServers } = config;
  return {
    stores,
    settings: { domains, plans, downloadUrlSeconds, deleteBudgetMs, webhooks, corsOrigin, checkDnsServers, ...(viewerDir ? { viewerDir } : {}) },
    now,
    webhooks: webhookRuntime(config, stores),
  };
}

function webhookRuntime(config: AppConfig, stores: Stores): WebhookRuntime {
  const { secrets, queue } = config.webhookRuntime;
  return {
    secrets: secrets.kind === 'file' ? new FileKeySecretBox(secrets.dataDir) : new KmsSecretBox(secrets.keyId),
    queue: queue.kind === 'store' ? new StoreDeliveryQueue(stores.webhooks) : new SqsDeliveryQueue(queue.url, queue.deadLetterUrl),
    sender: new HttpWebhookSender({ timeoutMs: config.webhooks.timeoutMs, allowPrivate: config.webhooks.allowPrivate }),
  };
}
