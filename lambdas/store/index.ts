/** The AWS adapters (DynamoDB table, S3 bucket) behind the ports. */
import type { AwsStoreConfig } from '../config/app-config';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BlobStore, KeyStore, Stores } from '../core/ports';
import { documentClient } from './clients';
import { DynamoInboxStore } from './dynamo-inbox-store';
import { DynamoWebhookStore } from './dynamo-webhook-store';
import type { S3BlobStore } from './s3-blob-store';

/**
 * Loads the S3 client on first use. Half the API's functions never touch S3, and loading the S3 SDK is about a
 * fifth of a cold start (bench:lambdas), so only the functions that use it pay for it.
 */
class LazyBlobStore implements BlobStore {
  private loaded?: S3BlobStore;
  constructor(
    private readonly bucket: string,
    private readonly endpoint?: string,
  ) {}
  private get store(): S3BlobStore {
    // A require (not an import) so that esbuild defers the module, and the S3 SDK with it, until this line runs.
    const { S3BlobStore, s3Client } = require('./s3-blob-store') as typeof import('./s3-blob-store');
    this.loaded ??= new S3BlobStore(s3Client(this.endpoint), this.bucket);
    return this.loaded;
  }
  put: BlobStore['put'] = (...args) => this.store.put(...args);
  get: BlobStore['get'] = (...args) => this.store.get(...args);
  getJson: BlobStore['getJson'] = (...args) => this.store.getJson(...args);
  head: BlobStore['head'] = (...args) => this.store.head(...args);
  copy: BlobStore['copy'] = (...args) => this.store.copy(...args);
  delete: BlobStore['delete'] = (...args) => this.store.delete(...args);
  deletePrefix: BlobStore['deletePrefix'] = (...args) => this.store.deletePrefix(...args);
  list: BlobStore['list'] = (...args) => this.store.list(...args);
  presignGet: BlobStore['presignGet'] = (...args) => this.store.presignGet(...args);
  downloadOrigin: BlobStore['downloadOrigin'] = () => this.store.downloadOrigin();
}

export function awsStores(config: AwsStoreConfig): Stores {
  const client = documentClient(config.endpoints?.dynamodb);
  const dynamo = new DynamoInboxStore(client, config.table);
  return { inboxes: dynamo, keys: dynamo, webhooks: new DynamoWebhookStore(client, config.table), blobs: new LazyBlobStore(config.bucket, config.endpoints?.s3), close: async () => undefined };
}

/**
 * The key store alone, for the keys CLI: on a deployed stack's table (`region`, the SDK's own credentials and
 * settings otherwise), or on a local DynamoDB Local (`endpoint`).
 */
export function awsKeyStore(table: string, where: { region?: string; endpoint?: string } = {}): KeyStore {
  const client = where.endpoint
    ? documentClient(where.endpoint)
    : DynamoDBDocumentClient.from(new DynamoDBClient(where.region ? { region: where.region } : {}), { marshallOptions: { removeUndefinedValues: true } });
  return new DynamoInboxStore(client, table);
}
