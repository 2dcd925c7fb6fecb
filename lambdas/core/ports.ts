/** What the use cases need from storage, as small interfaces: DynamoDB and S3 adapters implement them. */
import type { InboxPosition } from './cursor';
import type { ApiKeyRecord, InboxRecord, InboxRoute, MessageRecord, MessageSummary } from './model';
import type { MessageFilter } from './search';

export interface Page<T> {
  items: T[];
  /** The last item's id when more remain. */
  last?: string;
}

export interface InboxStore {
  /** Writes the inbox and claims its address atomically; false when the address is held by a live inbox. */
  createInbox(inbox: InboxRecord): Promise<boolean>;
  getInbox(id: string): Promise<InboxRecord | null>;
  /**
   * An account's inboxes, expired ones too until they are removed, newest first (creation time, then id, both
   * descending); `after` is where the previous page ended.
   */
  listInboxes(accountId: string, limit: number, after?: InboxPosition): Promise<{ items: InboxRecord[]; last?: InboxPosition }>;
  /** The inbox that holds (or, expired, last held) an address, read from its claim; callers check expiry. */
  inboxForAddress(address: string): Promise<InboxRoute | null>;
  /** Removes the inbox, its address claim and every message item. */
  deleteInbox(inbox: InboxRecord): Promise<void>;
  /**
   * Newest first. With a filter (core/search.ts), only matching messages; `last` may then name a message that did
   * not match (where a bounded search stopped), and a page may hold fewer than `limit` items while `last` is set.
   */
  listMessages(inboxId: string, limit: number, after?: string, filter?: MessageFilter): Promise<Page<MessageSummary>>;
  /** Messages newer than `after`, oldest first (the wait endpoint). */
  messagesSince(inboxId: string, after: string | undefined, limit: number): Promise<MessageSummary[]>;
  getMessage(inboxId: string, messageId: string): Promise<MessageRecord | null>;
  /**
   * Stores a message, bumps the inbox's count and the account's day usage in one transaction.
   * 'duplicate' when it is already stored (idempotent ingest); 'quota' when the day's limit is reached;
   * 'gone' when the inbox vanished or expired meanwhile.
   */
  putMessage(message: MessageRecord, inbox: InboxRoute, day: string, dailyLimit: number): Promise<'stored' | 'duplicate' | 'quota' | 'gone'>;
  deleteMessage(inboxId: string, messageId: string): Promise<boolean>;
  /** E-mails the account received on a UTC day. */
  usage(accountId: string, day: string): Promise<number>;
  /** Inboxes whose expiry (epoch seconds) is at or before `epoch`: for the local sweep. */
  inboxesExpiredBy(epoch: number): Promise<InboxRecord[]>;
}

export interface KeyStore {
  putKey(key: ApiKeyRecord): Promise<void>;
  getKey(keyHash: string): Promise<ApiKeyRecord | null>;
  listKeys(): Promise<ApiKeyRecord[]>;
  revokeKey(keyHash: string, atIso: string): Promise<ApiKeyRecord | null>;
}

export interface BlobStore {
  /** `metadata`: S3 user metadata (x-amz-meta-*), at most 2 KB in all. */
  put(key: string, body: Uint8Array | string, contentType: string, metadata?: Record<string, string>): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  /** The object's user metadata, or null when there is no such object. */
  head(key: string): Promise<Record<string, string> | null>;
  copy(fromKey: string, toKey: string): Promise<void>;
  delete(key: string): Promise<void>;
  deletePrefix(prefix: string): Promise<number>;
  list(prefix: string): Promise<string[]>;
  /** A link that serves one object for a limited time, with the response headers given (S3: a pre-signed URL). */
  presignGet(key: string, expiresInSeconds: number, response: DownloadHeaders): Promise<string>;
}

/** The headers a download link makes its response carry, so that stored mail is served as data. */
export interface DownloadHeaders {
  contentType: string;
  contentDisposition: string;
}

/**
 * The local form only: resolves a download link that its BlobStore signed (S3 checks its own signatures on AWS).
 * 'forbidden' for a link that was edited or has expired; null when the object is gone.
 */
export interface SignedDownloads {
  open(path: string, query: URLSearchParams, nowMs: number): Promise<{ body: Buffer; headers: DownloadHeaders } | 'forbidden' | null>;
}

/** Everything the use cases store, behind the ports above. */
export interface Stores {
  inboxes: InboxStore;
  keys: KeyStore;
  blobs: BlobStore;
  /** Present where links are signed by this process (the embedded store). */
  downloads?: SignedDownloads;
  /** Releases files and connections (the local stack's stop). */
  close(): Promise<void>;
}

/** Object keys: everything of an inbox lives under one prefix, so deleting an inbox deletes one prefix. */
export const blobKeys = {
  inbox: (inboxId: string) => `inboxes/${inboxId}/`,
  message: (inboxId: string, messageId: string) => `inboxes/${inboxId}/${messageId}/`,
  raw: (inboxId: string, messageId: string) => `inboxes/${inboxId}/${messageId}/raw.eml`,
  body: (inboxId: string, messageId: string) => `inboxes/${inboxId}/${messageId}/body.json`,
  attachment: (inboxId: string, messageId: string, attachmentId: string) => `inboxes/${inboxId}/${messageId}/${attachmentId}`,
  /** Where SES's S3 action (and the local SMTP stand-in) drops raw mail. */
  inbound: (sesMessageId: string) => `inbound/${sesMessageId}`,
  INBOUND_PREFIX: 'inbound/',
};
