/**
 * The AWS form of the context: DynamoDB and S3 behind the storage ports, KMS or a file key for webhook secrets, SQS
 * or the store's job table for deliveries, and the SSRF-safe HTTP sender. What a deployed function runs
 * (lambdas/app/current.ts; the ingest function adds the MIME parser, lambdas/app/ingest.ts), and the local stack's dynamodb form (lambdas/app/context.ts). It never loads the
 * embedded store, so no Lambda bundle carries SQLite or its native binding.
 */
import type { AppConfig } from '../config/app-config';
import type { Stores } from '../core/ports';
import { awsStores } from '../store';
import type { AppContext, WebhookRuntime } from '../usecases/context';
import { HttpWebhookSender } from '../webhooks/http-sender';
import { SqsDeliveryQueue, StoreDeliveryQueue } from '../webhooks/queues';
import { FileKeySecretBox, KmsSecretBox } from '../webhooks/secret-box';

/** The context on the given stores: what every form shares once its storage is chosen. */
export function contextOn(config: AppConfig, stores: Stores, now: () => number): AppContext {
  const { domains, plans, downloadUrlSeconds, deleteBudgetMs, webhooks, corsOrigin, viewerDir } = config;
  return {
    stores,
    settings: { domains, plans, downloadUrlSeconds, deleteBudgetMs, webhooks, corsOrigin, ...(viewerDir ? { viewerDir } : {}) },
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

export function awsContext(config: AppConfig, now: () => number = Date.now): AppContext {
  if (config.store.kind !== 'dynamodb') throw new Error(`the AWS context runs on the dynamodb store, not ${config.store.kind}`);
  return contextOn(config, awsStores(config.store), now);
}
