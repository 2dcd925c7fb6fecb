/**
 * The composition root: the one module that knows every adapter. `appContext(config)` builds the context the use
 * cases run against, from the one validated config (lambdas/config/app-config.ts), with the adapters its store
 * kind names:
 * - `dynamodb`: DynamoDB and S3 (lambdas/app/aws-context.ts; the local stack's DynamoDB Local + S3 server form);
 * - `embedded`: SQLite in the data folder (the local stack's default).
 * The local stack, the CLI and the tests build theirs here; a deployed function builds its own in
 * lambdas/app/current.ts, which never imports this file (a Lambda bundle carries no SQLite).
 */
import type { AppConfig } from '../config/app-config';
import { openEmbeddedStores } from '../store/sqlite-store';
import { ThreadedMailParser } from '../ingest/parse-thread';
import type { KeyStore } from '../core/ports';
import type { IngestContext } from '../usecases/context';
import type { awsKeyStore as AwsKeyStore } from '../store';
import { contextOn } from './context-on';
import { logger } from './logger';

/** The AWS side, loaded only when a dynamodb context or key store is asked for: the embedded form loads no AWS SDK client. */
const aws = () => require('./aws-context') as typeof import('./aws-context');

export function appContext(config: AppConfig, now: () => number = Date.now): IngestContext {
  const ctx = config.store.kind === 'embedded' ? contextOn(config, openEmbeddedStores(config.store, (message) => logger.warn(message)), now) : aws().awsContext(config, now);
  // Large mail is parsed on a worker thread: the local stack serves everything else on its one event loop.
  return Object.assign(ctx, { mail: new ThreadedMailParser() });
}

/** The keys CLI's store on a DynamoDB table (a deployed stack's, or the dynamodb form's DynamoDB Local). */
export function awsKeyStore(...args: Parameters<typeof AwsKeyStore>): KeyStore {
  return (require('../store') as typeof import('../store')).awsKeyStore(...args);
}
