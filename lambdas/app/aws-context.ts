/**
 * The AWS form of the context: DynamoDB and S3 behind the storage ports, KMS or a file key for webhook secrets, SQS
 * or the store's job table for deliveries, and the SSRF-safe HTTP sender. What a deployed function runs
 * (lambdas/app/current.ts; the ingest function adds the MIME parser, lambdas/app/ingest.ts), and the local stack's dynamodb form (lambdas/app/context.ts). It never loads the
 * embedded store, so no Lambda bundle carries SQLite or its native binding.
 */
import type { AppConfig } from '../config/app-config';
import { awsStores } from '../store';
import type { AppContext } from '../usecases/context';
import { contextOn } from './context-on';

export function awsContext(config: AppConfig, now: () => number = Date.now): AppContext {
  if (config.store.kind !== 'dynamodb') throw new Error(`the AWS context runs on the dynamodb store, not ${config.store.kind}`);
  return contextOn(config, awsStores(config.store), now);
}
