/**
 * Direct access to a stack's storage, for seeding data and checking what is stored: the same adapters the stack runs
 * (the SQLite database in its data folder, opened beside the running stack; or DynamoDB Local and the S3 server).
 */
import path from 'node:path';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { appConfig } from '../../lambdas/config/app-config';
import type { BlobStore, InboxStore, KeyStore, WebhookStore } from '../../lambdas/core/ports';
import { standInSettings } from '../../lambdas/layout/stand-ins';
import { documentClient } from '../../lambdas/store/clients';
import { removalEpoch } from '../../lambdas/core/inbox';
import { EXPIRY_ATTRIBUTE, keys, TTL_ATTRIBUTE } from '../../lambdas/layout/table-layout';
import { DATABASE_FILE } from '../../lambdas/store/sqlite-store';
import { appContext } from '../../lambdas/app/context';
import type { IngestContext } from '../../lambdas/usecases/context';
import type { KeyContext } from '../../lambdas/usecases/keys';
import { LOCAL_BUCKET, LOCAL_TABLE } from '../../local/config';
import type { Json } from './json';

export interface StackStorage {
  store: 'embedded' | 'dynamodb';
  dataDir: string;
  dynamoEndpoint?: string;
  s3Endpoint?: string;
  /** The table and bucket (start:aws names them after the template); default the local stack's. */
  table?: string;
  bucket?: string;
}

export interface TestStores {
  inboxes: InboxStore;
  keys: KeyStore;
  blobs: BlobStore;
  webhooks: WebhookStore;
  /** For the key use cases. */
  keyContext: KeyContext;
  /** The whole context on the stack's storage (for running handlers in the test process). */
  context: IngestContext;
  /** Moves an inbox's expiry (and its claim's) to `epoch`: time passing, without waiting for it. */
  setExpiry(inboxId: string, email: string, epoch: number): Promise<void>;
  /** Inbox, address claim and message records still stored (after deletes: none). */
  inboxItemsLeft(): Promise<string[]>;
  close(): Promise<void>;
}

const opened = new Map<string, TestStores>();

export function storesFor(stack: StackStorage): TestStores {
  const id = `${stack.store}:${stack.dataDir}:${stack.dynamoEndpoint ?? ''}`;
  let stores = opened.get(id);
  if (!stores) {
    stores = stack.store === 'embedded' ? embedded(stack.dataDir) : dynamo(stack.dynamoEndpoint!, stack.s3Endpoint!, stack.table ?? LOCAL_TABLE, stack.bucket ?? LOCAL_BUCKET);
    opened.set(id, stores);
  }
  return stores;
}

function embedded(dataDir: string): TestStores {
  const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1' } }));
  // A second connection for what the ports do not offer (moving time); WAL lets it share the file with the stack.
  const Driver = require('libsql') as new (file: string) => { prepare(sql: string): { run(...a: unknown[]): unknown; all(...a: unknown[]): Record<string, unknown>[] }; pragma(s: string): unknown; close(): void };
  const db = new Driver(path.join(dataDir, DATABASE_FILE));
  db.pragma('busy_timeout = 5000');
  return {
    ...ctx.stores,
    keyContext: ctx,
    context: ctx,
    async setExpiry(inboxId, email, epoch) {
      db.prepare("UPDATE inboxes SET expires_at_epoch = ?, record = json_set(record, '$.expires_at_epoch', ?, '$.expires_at', ?) WHERE id = ?").run(
        epoch,
        epoch,
        new Date(epoch * 1000).toISOString(),
        inboxId,
      );
      db.prepare('UPDATE address_claims SET expires_at_epoch = ? WHERE address = ?').run(epoch, email);
    },
    async inboxItemsLeft() {
      return ['inboxes', 'address_claims', 'messages'].flatMap((table) => db.prepare(`SELECT '${table}' AS t FROM ${table}`).all().map((r) => String(r.t)));
    },
    async close() {
      db.close();
      await ctx.stores.close();
    },
  };
}

function dynamo(dynamoEndpoint: string, s3Endpoint: string, table: string, bucket: string): TestStores {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const ctx = appContext(appConfig({ store: { kind: 'dynamodb', table, bucket, endpoints: { dynamodb: dynamoEndpoint, s3: s3Endpoint } } }));
  const doc = documentClient(dynamoEndpoint);
  const raw = new DynamoDBClient(standInSettings(dynamoEndpoint));
  return {
    ...ctx.stores,
    keyContext: ctx,
    context: ctx,
    async setExpiry(inboxId, email, epoch) {
      const names = { '#expiry': EXPIRY_ATTRIBUTE, '#ttl': TTL_ATTRIBUTE };
      const values = { ':e': epoch, ':purge': removalEpoch(epoch) };
      await doc.send(new UpdateCommand({ TableName: table, Key: keys.inbox(inboxId), UpdateExpression: 'SET #expiry = :e, #ttl = :purge, expires_at = :iso', ExpressionAttributeNames: names, ExpressionAttributeValues: { ...values, ':iso': new Date(epoch * 1000).toISOString() } }));
      await doc.send(new UpdateCommand({ TableName: table, Key: keys.address(email), UpdateExpression: 'SET #expiry = :e, #ttl = :purge', ExpressionAttributeNames: names, ExpressionAttributeValues: values }));
    },
    async inboxItemsLeft() {
      const out: string[] = [];
      let start: Record<string, Json> | undefined;
      do {
        const page = await raw.send(new ScanCommand({ TableName: table, ProjectionExpression: 'pk, sk', ExclusiveStartKey: start }));
        for (const item of page.Items ?? []) out.push(`${item.pk.S}|${item.sk.S}`);
        start = page.LastEvaluatedKey;
      } while (start);
      return out.filter((k) => /^(INBOX|ADDR)/.test(k));
    },
    async close() {
      await ctx.stores.close();
    },
  };
}

/** Makes an address claim look as claims did before they carried routing fields (DynamoDB form only). */
export async function stripClaimRouting(dynamoEndpoint: string, email: string, table = LOCAL_TABLE): Promise<void> {
  await documentClient(dynamoEndpoint).send(
    new UpdateCommand({ TableName: table, Key: keys.address(email), UpdateExpression: 'REMOVE account_id, #plan', ExpressionAttributeNames: { '#plan': 'plan' } }),
  );
}
