/** The stores a handler uses, built once per container from the environment. */
import type { BlobStore, InboxStore, KeyStore } from '../core/ports';
import { DynamoInboxStore } from './dynamo-inbox-store';
import { S3BlobStore } from './s3-blob-store';

export interface Stores {
  inboxes: InboxStore;
  keys: KeyStore;
  blobs: BlobStore;
}

let stores: Stores | undefined;

export function defaultStores(): Stores {
  if (!stores) {
    const dynamo = new DynamoInboxStore();
    stores = { inboxes: dynamo, keys: dynamo, blobs: new S3BlobStore() };
  }
  return stores;
}
