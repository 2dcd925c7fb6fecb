/** What the use cases need from storage, as small interfaces: DynamoDB and S3 adapters implement them. */
import type { Readable } from 'node:stream';
import type { ByteSpan } from './byte-range';
import type { MailText } from './mail-text';
import type { InboxPosition } from './cursor';
import type { ApiKeyRecord, InboxListing, InboxRecord, InboxRoute, MailHeader, MessageRecord, MessageSummary } from './model';
import type { AttemptResult } from './webhook-retries';
import type { DeliveryJob, DeliveryRecord, WebhookRecord } from './webhooks';
import type { MessageFilter } from './search';
import type { AuthenticationReport } from './checks/authentication';
import type { FeatureReport } from './checks/html';
import type { LinkReport, LinkTarget } from './checks/links';
import type { Finding } from './checks/model';

export interface Page<T> {
  items: T[];
  /** The last item's id when more remain. */
  last?: string;
}

/**
 * A page of a message list. With a filter, `matched` counts the messages that match from the page's start on (the
 * page's own included), within the same bound as the search itself (core/limits.ts MAX_FILTER_SCAN_*): `exact` is
 * false when the bound stopped the count before the inbox's end, and `count` then covers only what was read.
 */
export interface MessagePage extends Page<MessageSummary> {
  matched?: { count: number; exact: boolean };
}

/** What storing a message is judged against, decided by the use case: its clock, the day counted, the plan's limits. */
export interface PutRules {
  /** The use case's clock, epoch seconds (core/inbox.ts epochSeconds). */
  nowEpoch: number;
  /** The UTC day the mail counts against (`YYYY-MM-DD`). */
  day: string;
  dailyLimit: number;
  /** Absent: no limit. */
  storageLimit?: number;
}

export interface InboxStore {
  /**
   * Writes the inbox and claims its address atomically; false when the address is not free at `nowEpoch` (the use
   * case's clock, epoch seconds: core/inbox.ts claimIsFree).
   */
  createInbox(inbox: InboxRecord, nowEpoch: number): Promise<boolean>;
  getInbox(id: string): Promise<InboxRecord | null>;
  /**
   * An account's inboxes, expired ones too until they are removed, newest first (creation time, then id, both
   * descending); `after` is where the previous page ended. With `group` (stored form), only the inboxes created in it.
   */
  listInboxes(accountId: string, limit: number, after?: InboxPosition, group?: string): Promise<{ items: InboxListing[]; last?: InboxPosition }>;
  /**
   * How many of the account's inboxes are live at `nowEpoch` (not expired, not being deleted), counted up to
   * `atMost` (a store stops there: the answer is then `atMost`). For the plan's `max_inboxes`.
   */
  liveInboxCount(accountId: string, nowEpoch: number, atMost: number): Promise<number>;
  /** The inbox that holds (or, expired, last held) an address, read from its claim; callers check expiry. */
  inboxForAddress(address: string): Promise<InboxRoute | null>;
  /**
   * Removes the inbox, its address claim and every message item; unless it was marked deleting, its stored bytes
   * leave its account's usage with it (atomically with the inbox item).
   */
  deleteInbox(inbox: InboxRecord): Promise<void>;
  /**
   * The first step of a DELETE, before any message goes: marks the inbox `deleting` and moves its expiry (and its
   * address claim's, while the claim names it) to `expiredAtEpoch`, so the address is free at once and whatever a
   * DELETE leaves is removed by the sweep (or TTL) later. The inbox's stored bytes leave its account's usage in the
   * same write (once: marking it again changes nothing).
   */
  markInboxDeleting(inbox: InboxRecord, expiredAtEpoch: number): Promise<void>;
  /** Removes up to `max` of the inbox's message items; the number removed (0: none left). */
  deleteMessages(inboxId: string, max: number): Promise<number>;
  /**
   * Newest first. A page may hold fewer than `limit` items (a store bounds what one call reads, and a filter
   * (core/search.ts) leaves out what does not match); `last` is set whenever more may remain, and may then name a
   * message that did not match: the next page starts after it. With a filter the page also says how many match
   * (MessagePage.matched): the search reads on past the page's last match, up to its bound, to count them.
   */
  listMessages(inboxId: string, limit: number, after?: string, filter?: MessageFilter): Promise<MessagePage>;
  /**
   * Messages newer than `after`, oldest first (the wait endpoint). Like listMessages, a page may hold fewer than
   * `limit` (a store bounds what one call reads): `last` is set whenever more may remain, and the next call starts after it.
   */
  messagesSince(inboxId: string, after: string | undefined, limit: number): Promise<Page<MessageSummary>>;
  getMessage(inboxId: string, messageId: string): Promise<MessageRecord | null>;
  /**
   * Stores a message, bumps the inbox's count, the account's day usage and its stored bytes (the message's
   * `stored_bytes`, added to the inbox's and the account's) in one transaction.
   * 'duplicate' when it is already stored (idempotent ingest); 'quota' when the day's limit is reached; 'storage'
   * when the account's stored bytes would pass `storageLimit` (absent: no limit); 'gone' when the inbox vanished or
   * is no longer live at `nowEpoch` (core/inbox.ts isLiveAt).
   */
  putMessage(message: MessageRecord, inbox: InboxRoute, rules: PutRules): Promise<'stored' | 'duplicate' | 'quota' | 'storage' | 'gone'>;
  /**
   * Removes one message of a live inbox (not one being deleted), and its `stored_bytes` from the inbox's and the
   * account's, in one transaction; false when there is no such message.
   */
  deleteMessage(inboxId: string, messageId: string): Promise<boolean>;
  /** E-mails the account received on a UTC day. */
  usage(accountId: string, day: string): Promise<number>;
  /**
   * Bytes the account's messages hold toward its storage quota: every stored message's `stored_bytes`, less those
   * of inboxes marked deleting or removed (markInboxDeleting and deleteInbox take an inbox's bytes off, once).
   */
  storageUsed(accountId: string): Promise<number>;
  /**
   * Takes a removed inbox's bytes off its account's usage, for a removal no store call made (AWS: DynamoDB's TTL,
   * seen on the table's stream). Never below zero.
   */
  releaseStorage(accountId: string, bytes: number): Promise<void>;
  /** Inboxes whose expiry (epoch seconds) is at or before `epoch`: for the local sweep. */
  inboxesExpiredBy(epoch: number): Promise<InboxRecord[]>;
}

export interface KeyStore {
  putKey(key: ApiKeyRecord): Promise<void>;
  getKey(keyHash: string): Promise<ApiKeyRecord | null>;
  listKeys(): Promise<ApiKeyRecord[]>;
  revokeKey(keyHash: string, atIso: string): Promise<ApiKeyRecord | null>;
}

export interface PresignedResponse {
  contentType?: string;
  contentDisposition?: string;
  cacheControl?: string;
}

/** What BlobStore.put takes (bytes, chunks, or bytes the store may hold already): lambdas/core/blob-bodies.ts. */
export { heldBytes, isChunks, isHeld, type BlobBody, type HeldBody, type HeldPlace } from './blob-bodies';
import type { BlobBody } from './blob-bodies';

export interface BlobStore {
  /** `body`: the bytes, a string (as UTF-8), or chunks of bytes in order. `metadata`: S3 user metadata (x-amz-meta-*), at most 2 KB in all. */
  put(key: string, body: BlobBody, contentType: string, metadata?: Record<string, string>): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  /**
   * A JSON object (a message's body object) with its string fields cut to `maxStringChars` characters each (`cut`:
   * one was), or null when there is no such object. The local store parses a large one on a thread of its own: a
   * 38 MB body object parsed on the event loop held every request and SMTP session about a second.
   */
  getJson(key: string, maxStringChars: number): Promise<CutJson | null>;
  /** The object's user metadata, or null when there is no such object. */
  head(key: string): Promise<Record<string, string> | null>;
  copy(fromKey: string, toKey: string): Promise<void>;
  delete(key: string): Promise<void>;
  deletePrefix(prefix: string): Promise<number>;
  list(prefix: string): Promise<string[]>;
  /** A link that serves one object for a limited time, with the response headers given (S3: a pre-signed URL). */
  presignGet(key: string, expiresInSeconds: number, response: DownloadHeaders): Promise<string>;
  /**
   * The origin of the links presignGet hands out (S3's bucket host when deployed, another port than the API's
   * locally): a page that fetches them must allow it (the viewer's CSP, lambdas/api/get-viewer.ts).
   */
  downloadOrigin(): Promise<string>;
}

export interface CutJson {
  value: Record<string, unknown>;
  /** The keys whose strings were cut, in order. */
  cut: string[];
}

/** The headers a download link makes its response carry, so that stored mail is served as data. */
export interface DownloadHeaders {
  contentType: string;
  contentDisposition: string;
}

/** An object's bytes as a stream, read as it is sent, and its size (the response's Content-Length). */
export interface StoredStream {
  /** The object's bytes, or only the span's when `openStream`'s `pick` chose one (a Range request). */
  body: Readable;
  /** The whole object's size. */
  size: number;
  span?: ByteSpan;
}

/** The local form only: resolves and serves the download links its BlobStore signed (S3 serves its own on AWS). */
export interface SignedDownloads {
  /** The object key and headers a link names; 'forbidden' for a link that was edited or has expired. */
  verify(path: string, query: URLSearchParams, nowMs: number): { key: string; headers: DownloadHeaders } | 'forbidden';
  /** The object, streamed (only the span `pick` chooses once the size is known, if any); null when it is gone. */
  openStream(key: string, pick?: (size: number) => ByteSpan | undefined): Promise<StoredStream | null>;
}

export interface WebhookStore {
  /** Stores a new webhook unless the account holds `maxPerAccount` already (then false), atomically. */
  putWebhook(hook: WebhookRecord, maxPerAccount: number): Promise<boolean>;
  getWebhook(accountId: string, webhookId: string): Promise<WebhookRecord | null>;
  /** By id, oldest first. */
  listWebhooks(accountId: string, limit: number, after?: string): Promise<Page<WebhookRecord>>;
  /** Every webhook of the account (at most the plan's limit): what an event is matched against. */
  accountWebhooks(accountId: string): Promise<WebhookRecord[]>;
  deleteWebhook(accountId: string, webhookId: string): Promise<boolean>;
  /** Marks it disabled with a reason (first reason wins); false when it is gone. */
  disableWebhook(accountId: string, webhookId: string, reason: string, atIso: string): Promise<boolean>;
  /** One attempt's record; it expires after `keepSeconds`. */
  putDelivery(delivery: DeliveryRecord, keepSeconds: number): Promise<void>;
  /** Newest first, records past their expiry left out. */
  listDeliveries(webhookId: string, limit: number, nowMs: number): Promise<DeliveryRecord[]>;
  /**
   * The local form's delivery queue (SQS on AWS): a job per event and webhook, keyed by event id, so that an event
   * queued twice is one job. `putJobs` inserts new jobs and leaves existing ones alone; `rescheduleJob` replaces.
   */
  putJobs(jobs: DeliveryJob[]): Promise<void>;
  rescheduleJob(job: DeliveryJob): Promise<void>;
  deleteJob(eventId: string): Promise<void>;
  /** Jobs due at `nowMs`, earliest first. */
  dueJobs(nowMs: number, limit: number): Promise<DeliveryJob[]>;
  /** When the earliest job is due (epoch ms), or null when none is pending. */
  nextJobDue(): Promise<number | null>;
}

/** Seals webhook signing secrets for storage: a read of the table alone never gives them away. */
export interface SecretBox {
  /** `context` (the webhook's id and account) is bound to the sealed form: it opens only for the same webhook. */
  seal(secret: string, context: Record<string, string>): Promise<string>;
  open(sealed: string, context: Record<string, string>): Promise<string>;
}

/** Where deliveries wait for their next attempt: SQS with delays on AWS, the store's job table locally. */
export interface DeliveryQueue {
  enqueue(jobs: DeliveryJob[]): Promise<void>;
  /** The attempt failed and another is due at `job.due_at_ms`. */
  retry(job: DeliveryJob): Promise<void>;
  /** Finished with (delivered, or given up). */
  done(job: DeliveryJob): Promise<void>;
  /** Past the schedule: kept for inspection (AWS: the dead-letter queue; locally the delivery records suffice). */
  deadLetter(job: DeliveryJob): Promise<void>;
  /**
   * Calls `listener` whenever a job is queued or put back, for a queue this process pulls from itself (the local
   * dispatcher over the store's job table: it wakes at once instead of at its next poll). Absent where another
   * service delivers the jobs (SQS). Returns the way to stop listening.
   */
  onQueued?(listener: () => void): () => void;
}

/** Makes one HTTP attempt, SSRF rules applied to the addresses it resolves. */
export interface WebhookSender {
  /** Why deliveries to this URL's host would be refused now (its name resolved), or null. */
  vet(url: URL): Promise<string | null>;
  post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult>;
}

/**
 * What happened, for webhooks: the local form's ingest and sweep report here (AWS reads the same facts from the
 * table's stream instead, so there this is absent).
 */
export interface DomainEvents {
  messageStored(message: MessageRecord, inbox: InboxRoute): Promise<void>;
  inboxExpired(inbox: InboxRecord): Promise<void>;
}

export interface ParsedAttachment {
  filename: string | null;
  content_type: string;
  content_id: string | null;
  content: Buffer;
  size: number;
  /** Where its body lies in the raw mail, as plain base64 lines that decode to `content` (lifted whole): keepable there. */
  base64Span?: { start: number; end: number };
}

/** A mail read by the MailParser: what ingest turns into a message record, its body and its attachments. */
export interface ParsedMail {
  /** The From header's address, else the envelope sender, else ''. */
  from: string;
  from_name: string | null;
  subject: string;
  /** The text/plain part, or text derived from the HTML when there is none. */
  text: MailText;
  /** The text/html part, or ''. */
  html: MailText;
  attachments: ParsedAttachment[];
  to: string[];
  cc: string[];
  reply_to: string[];
  message_id: string | null;
  in_reply_to: string | null;
  date: string | null;
  /** The top-level header fields in order, decoded; at most MESSAGE_CAPS.headers of them. */
  headers: MailHeader[];
  /** How many header fields the mail has (more than `headers` lists when it was cut). */
  header_count: number;
  /** Set when the MIME structure could not be parsed and the mail was read minimally. */
  parse_error: string | null;
  warnings: string[];
}

/** A mail parsed in the caller's thread (parse-mail.ts): its bodies are strings. */
export type InProcessParse = ParsedMail & { text: string; html: string };

export interface ParseOptions {
  envelopeFrom?: string;
  /** Budget for the full parse; past it the minimal parse is used. Defaults to 5 s plus 1 s per MB. */
  timeoutMs?: number;
}

/** Raw MIME → the parts of a message (lambdas/ingest/parse-mail.ts). Neither form throws. */
export interface MailParser {
  /** The full parse; falls back to the minimal one when the MIME structure cannot be read in time. */
  parse(raw: Buffer, options: ParseOptions): Promise<ParsedMail>;
  /** Headers and the body as text, linear in the mail's size: the degraded form, with `error` as its parse error. */
  minimal(raw: Buffer, options: ParseOptions, error: string): ParsedMail;
}

/** Everything the use cases store, behind the ports above. */
/**
 * Verifies a raw mail's SPF, DKIM, DMARC and ARC (lambdas/checks/mail-auth.ts: mailauth over DNS). Never throws for
 * DNS trouble or a spent budget: the report says temperror, or cutShort, with the reason.
 */
export interface MailAuthenticator {
  /** `sender`: MAIL FROM (the envelope); `deadline`: epoch ms by which it answers with what it has. */
  authenticate(raw: Buffer, sender: string, deadline: number): Promise<AuthenticationReport>;
}

/** What one pass over a mail's HTML found (lambdas/checks/html-scan.ts). */
export interface HtmlInspection {
  features: FeatureReport;
  /** Why the html section did not check everything (the pass's own limit, or the feature checker's). */
  featuresCutShort: string | null;
  accessibility: Finding[];
  /** The http(s) image sources, in order, each once (at most MAX_IMAGE_SOURCES), for the links section. */
  images: string[];
  /** Why the pass did not read all of the HTML: its size, its element count, or the deadline. */
  cutShort: string | null;
}

/**
 * Reads a mail's HTML for the html and accessibility checks. Never throws for what the HTML holds (malformed CSS,
 * deep nesting): it reports what it could read and why it stopped, by `deadline` (epoch ms).
 */
export interface HtmlInspector {
  inspect(html: string, deadline: number): Promise<HtmlInspection>;
}

/**
 * Asks each URL (the links section, only when a caller asks for it): status, redirects, time. Never throws: a URL that
 * cannot be asked says why; the report says which were not asked by `deadline` (epoch ms).
 */
export interface LinkProber {
  probe(targets: LinkTarget[], deadline: number): Promise<LinkReport>;
}

export interface Stores {
  inboxes: InboxStore;
  keys: KeyStore;
  blobs: BlobStore;
  webhooks: WebhookStore;
  /** Present where links are signed by this process (the embedded store). */
  downloads?: SignedDownloads;
  /**
   * Resolves once every write that resolved before the call survives a power loss (the embedded store: an fsync of its
   * log). Absent where every write is durable when it resolves (DynamoDB, S3).
   */
  sync?(): Promise<void>;
  /** Bytes the store reuses before its files grow (the embedded store: SQLite's free pages), for the free-space headroom. */
  reclaimableBytes?(): number;
  /**
   * The embedded store, which answers routes, day counts and webhook lists from memory once SQLite says no other
   * connection has committed since: from this call on it asks only at the first such answer after each input, and
   * the returned function marks one. The caller (the local stack) calls it at everything that enters the process and
   * may follow another connection's commit: each HTTP request, each RCPT and end of DATA, each sweep.
   */
  askOncePerInput?(): () => void;
  /**
   * The embedded store: removes the object files no row names (what a crash left between a file's write and its row's
   * commit, and spool segments handed over whose last message was deleted); returns how many. The local stack calls
   * it at start, before anything writes.
   */
  sweepOrphanFiles?(): number;
  /**
   * The embedded store: the inbound spool has handed over a segment all of whose mail is stored (HeldBody); it is
   * removed once no object keeps its bytes there, now or when the last such object is deleted.
   */
  releaseSpoolSegment?(segment: number): Promise<void>;
  /** The embedded store: the highest spool segment any object names (the spool numbers new ones past it). */
  highestSpoolSegment?(): Promise<number>;
  /**
   * The embedded store, for a delete on a full disk: removes the files of the objects under `prefix` (and the spool
   * segments only they name) ahead of their rows (they read as gone from then on), so that the store has room to
   * write the delete. How many.
   */
  releaseObjectFiles?(prefix: string): Promise<number>;
  /** Releases files and connections (the local stack's stop). */
  close(): Promise<void>;
}

/** Object keys (every store's, one fact): lambdas/core/blob-keys.ts. */
export { blobKeys } from './blob-keys';
