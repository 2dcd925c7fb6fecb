/** The stores a handler uses, built once per container from the environment. */
import type { BlobStore, InboxStore, KeyStore } from '../core/ports';
import { DynamoInboxStore } from './dynamo-inbox-store';
import type { S3BlobStore } from './s3-blob-store';

export interface Stores {
  inboxes: InboxStore;
  keys: KeyStore;
  blobs: BlobStore;
}

/**
 * Loads the S3 client on first use. Half the API's functions never touch S3, and loading the S3 SDK is about a
 * fifth of a cold start (bench:lambdas), so only the functions that use it pay for it.
 */
class LazyBlobStore implements BlobStore {
  private loaded?: S3BlobStore;
  private get store(): S3BlobStore {
    // A require (not an import) so that esbuild defers the module, and the S3 SDK with it, until this line runs.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.loaded ??= new (require('./s3-blob-store') as typeof import('./s3-blob-store')).S3BlobStore();
    return this.loaded;
  }
  put: BlobStore['put'] = (...args) => this.store.put(...args);
  get: BlobStore['get'] = (...args) => this.store.get(...args);
  head: BlobStore['head'] = (...args) => this.store.head(...args);
  copy: BlobStore['copy'] = (...args) => this.store.copy(...args);
  delete: BlobStore['delete'] = (...args) => this.store.delete(...args);
  deletePrefix: BlobStore['deletePrefix'] = (...args) => this.store.deletePrefix(...args);
  list: BlobStore['list'] = (...args) => this.store.list(...args);
  presignGet: BlobStore['presignGet'] = (...args) => this.store.presignGet(...args);
}

let stores: Stores | undefined;

export function defaultStores(): Stores {
  if (!stores) {
    const dynamo = new DynamoInboxStore();
    stores = { inboxes: dynamo, keys: dynamo, blobs: new LazyBlobStore() };
  }
  return stores;
}
