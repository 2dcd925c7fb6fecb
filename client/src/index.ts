/**
 * `tempmail-client`: a typed client for the TempMail REST API. It has no dependencies and uses only the platform's
 * fetch, so the MCP server, the tests and anyone's test suite can carry it. It retries what
 * the API itself says to retry (429, and 503 where that is safe) after the `Retry-After` it names, and its
 * `waitForMessage` waits as long as the caller likes, over a wait endpoint that holds a request at most 25 s.
 */
import type {
  CreateInboxInput,
  CreateWebhookInput,
  Deleted,
  Domains,
  GroupDeleted,
  Inbox,
  InboxCreated,
  InboxEmptied,
  InboxList,
  Message,
  MessageList,
  MessageSnapshot,
  RawLink,
  WaitResult,
  Webhook,
  WebhookCreated,
  WebhookDeliveries,
  WebhookList,
  WebhookTestQueued,
} from './types.js';
import type { ExpectNoMessageOptions, WaitForOptions, WaitMessages } from './wait-types.js';
import type { ChecksOptions, MessageChecks } from './check-types.js';
import { TempMailApiError, TempMailNetworkError } from './errors.js';

export type * from './types.js';
export type * from './wait-types.js';
export type * from './check-types.js';
export { TempMailApiError, TempMailNetworkError } from './errors.js';
export { code, link, TempMailMatchError, type CodeOptions, type LinkOptions, type TextMatcher } from './extract.js';

export interface RetryOptions {
  /** Retries after the first try; 0 turns retrying off. Default 3. */
  attempts?: number;
  /** The longest wait the client accepts: an answer asking for more is thrown at once. Default 30,000 ms. */
  maxDelayMs?: number;
}

export interface ClientOptions {
  apiKey: string;
  /** The API's base URL, without /v1. Default http://127.0.0.1:3000, the local stack. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Per HTTP request; a wait request gets its own hold time on top. Default 30,000 ms. */
  timeoutMs?: number;
  /** Retrying 429 (every method) and 503 (every method but POST, which may have done its work). */
  retry?: RetryOptions;
}

export interface WaitOptions {
  /** Seconds to wait in all, any length: the 25-second endpoint is called again until then. Default 20. */
  timeout?: number;
  /** Only messages that arrived after this message id. Without it, the oldest matching message already in the inbox counts. */
  after?: string;
  /** Case-insensitive substring of the sender ("name <address>"). */
  from?: string;
  /** Case-insensitive substring of the subject. */
  subject?: string;
}

/**
 * The API's limits as this package states them to stand alone; test/unit/client-types.test.ts proves each equal to
 * the server's (lambdas/core/limits.ts, core/inbox.ts) when the repository type-checks.
 */
/** The longest one wait request may hold, as the API states it. */
export const MAX_WAIT_SECONDS_PER_REQUEST = 25;
/** How long waitForMessage waits when no timeout is given. */
export const DEFAULT_WAIT_SECONDS = 20;
/** An inbox's lifetime when createInbox names none, and the shortest it may name (the plan sets the longest). */
export const DEFAULT_TTL_SECONDS = 3600;
export const MIN_TTL_SECONDS = 60;

type Query = Record<string, string | number | undefined>;
interface RequestOptions {
  body?: unknown;
  query?: Query;
  extraTimeoutMs?: number;
  /** `manual`: a 3xx is handed back, not followed (the raw download must not carry the key to the link). */
  redirect?: 'follow' | 'manual';
}

/**
 * An id as one path segment. `.`, `..` and nothing are refused before any request: a URL resolves them into another
 * path (`DELETE …/messages/..` is the inbox itself, `/v1/webhooks/.` the list).
 */
function segment(id: string): string {
  if (id === '' || id === '.' || id === '..') throw new TypeError(`not an id: ${JSON.stringify(id)}`);
  return encodeURIComponent(id);
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class TempMailClient {
  private readonly apiKey: string;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly retryAttempts: number;
  private readonly maxRetryDelayMs: number;

  constructor(options: ClientOptions) {
    if (!options?.apiKey) throw new TypeError('TempMailClient needs an apiKey');
    this.apiKey = options.apiKey;
    this.baseUrl = (options.baseUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retryAttempts = options.retry?.attempts ?? 3;
    this.maxRetryDelayMs = options.retry?.maxDelayMs ?? 30_000;
  }

  createInbox(input: CreateInboxInput = {}): Promise<InboxCreated> {
    return this.json('POST', '/v1/inboxes', { body: input });
  }

  /** The caller's inboxes (with `group`, that group's), newest first; expired ones are listed (status "expired") until they are removed. */
  listInboxes(query: { limit?: number; cursor?: string; group?: string } = {}): Promise<InboxList> {
    return this.json('GET', '/v1/inboxes', { query });
  }

  /**
   * Deletes every inbox of the group with its messages. A large group takes more than one request (the API answers
   * 202 with `finished: false` when a request runs out of time): this repeats it until the group is empty and
   * resolves with the number deleted in all.
   */
  async deleteInboxes(group: string): Promise<GroupDeleted> {
    let deleted = 0;
    for (;;) {
      const step = await this.json<GroupDeleted>('DELETE', '/v1/inboxes', { query: { group } });
      deleted += step.deleted_count;
      if (step.finished) return { deleted_count: deleted, finished: true };
    }
  }

  async getInbox(inboxId: string): Promise<Inbox> {
    return this.json('GET', `/v1/inboxes/${segment(inboxId)}`);
  }

  async deleteInbox(inboxId: string): Promise<Deleted> {
    return this.json('DELETE', `/v1/inboxes/${segment(inboxId)}`);
  }

  /**
   * Deletes every message of the inbox and keeps the inbox. A very large inbox takes more than one request (the API
   * answers 202 with `finished: false` when a request runs out of time): this repeats it until the inbox is empty
   * and resolves with the number deleted in all.
   */
  async emptyInbox(inboxId: string): Promise<InboxEmptied> {
    let deleted = 0;
    for (;;) {
      const step = await this.json<InboxEmptied>('DELETE', `/v1/inboxes/${segment(inboxId)}/messages`);
      deleted += step.deleted_count;
      if (step.finished) return { deleted_count: deleted, finished: true };
    }
  }

  /** Summaries, newest first; pass `next_cursor` back as `cursor` for the next page. */
  /** `q`, `from`, `subject`: case-insensitive substring filters; a filtered page may be short while next_cursor is set. */
  async listMessages(inboxId: string, query: { limit?: number; cursor?: string; q?: string; from?: string; subject?: string } = {}): Promise<MessageList> {
    return this.json('GET', `/v1/inboxes/${segment(inboxId)}/messages`, { query });
  }

  async getMessage(inboxId: string, messageId: string): Promise<Message> {
    return this.json('GET', `/v1/inboxes/${segment(inboxId)}/messages/${segment(messageId)}`);
  }

  /**
   * Subject, text and HTML with what changes between runs (codes, dates, message ids, the inbox address, tokens in
   * URLs, tracking parameters, MIME boundaries) replaced by placeholders such as <CODE-1>: for `toMatchSnapshot()`.
   */
  async getMessageSnapshot(inboxId: string, messageId: string): Promise<MessageSnapshot> {
    return this.json('GET', `/v1/inboxes/${segment(inboxId)}/messages/${segment(messageId)}/snapshot`);
  }

  /**
   * The message's checks (docs/API.md, "Checking a message"): each section's status, reason and findings, by section
   * name. `links: true` adds the links section, which requests each link and image of the mail (third-party URLs).
   */
  async checks(inboxId: string, messageId: string, options: ChecksOptions = {}): Promise<MessageChecks> {
    const query = { links: options.links ? 'true' : undefined };
    return this.json('GET', `/v1/inboxes/${segment(inboxId)}/messages/${segment(messageId)}/checks`, { query });
  }

  /** The message as received over SMTP (message/rfc822). */
  /**
   * Asks for the download link as JSON (`?as=url`) and fetches it without the API key: following the API's redirect
   * would carry the X-API-Key header to the link's host (fetch keeps custom headers across origins).
   */
  async getRawMessage(inboxId: string, messageId: string): Promise<Uint8Array> {
    const path = `/v1/inboxes/${segment(inboxId)}/messages/${segment(messageId)}/raw`;
    const { download_url } = await this.json<RawLink>('GET', path, { query: { as: 'url' } });
    return this.download(download_url, 'raw message');
  }

  /**
   * An attachment's bytes, by the id `getMessage` lists it under. The message is read afresh, so its download link
   * (a pre-signed URL, valid for minutes) is new, and the link is fetched without the API key. A message that failed
   * the virus scan serves no attachment: that throws TempMailApiError 403, as its raw form does; an id the message
   * does not list throws 404.
   */
  async downloadAttachment(inboxId: string, messageId: string, attachmentId: string): Promise<Uint8Array> {
    const message = await this.getMessage(inboxId, messageId);
    const attachment = message.attachments.find((a) => a.id === attachmentId);
    if (!attachment) throw new TempMailApiError(404, `attachment not found: ${attachmentId}`);
    if (attachment.download_url === null) throw new TempMailApiError(403, `attachment ${attachmentId} is not served: the message failed the virus scan (auth.virus FAIL)`);
    return this.download(attachment.download_url, 'attachment');
  }

  /** A download link's bytes: fetched without the API key, which must not travel to the link's host. */
  /** A download link's bytes; its 429 and 503 (the local stack's download limits, S3's SlowDown) retried as the API's are. */
  private async download(link: string, what: string): Promise<Uint8Array> {
    for (let retries = 0; ; retries++) {
      let download: Response;
      try {
        download = await this.fetchImpl(new URL(link, this.baseUrl), { signal: AbortSignal.timeout(this.timeoutMs) });
      } catch (error) {
        throw new TempMailNetworkError(`cannot download the ${what}: ${(error as Error).message}`, { cause: error });
      }
      if (download.ok) return new Uint8Array(await download.arrayBuffer());
      await download.body?.cancel();
      const error = new TempMailApiError(download.status, `${what} download failed: HTTP ${download.status}`, undefined, retryAfterOf(download));
      const delayMs = this.retryDelayMs(error, 'GET', retries);
      if (delayMs === undefined) throw error;
      await sleep(delayMs);
    }
  }

  async deleteMessage(inboxId: string, messageId: string): Promise<Deleted> {
    return this.json('DELETE', `/v1/inboxes/${segment(inboxId)}/messages/${segment(messageId)}`);
  }

  /**
   * Waits up to `timeout` seconds for a message matching `after`, `from` and `subject`, calling the wait endpoint
   * (at most 25 s a call) as often as it takes. Resolves `{message, timed_out: false}`, or `{message: null,
   * timed_out: true}` when the time is up. Without `after`, a matching message already in the inbox (the oldest)
   * is the answer at once: pass the last id you have seen to wait for a new one.
   */
  async waitForMessage(inboxId: string, options: WaitOptions = {}): Promise<WaitResult> {
    const { timeout = DEFAULT_WAIT_SECONDS, ...filters } = options;
    const deadline = Date.now() + timeout * 1000;
    for (;;) {
      const left = Math.ceil((deadline - Date.now()) / 1000);
      if (left < 1) return { message: null, timed_out: true };
      const hold = Math.min(MAX_WAIT_SECONDS_PER_REQUEST, left);
      const result = await this.json<WaitResult>('GET', `/v1/inboxes/${segment(inboxId)}/messages/wait`, {
        query: { timeout: hold, ...filters },
        extraTimeoutMs: hold * 1000,
      });
      if (result.message) return result;
    }
  }

  /**
   * Waits up to `timeout` seconds (any length, default 20) until `count` messages (default 1) match the conditions,
   * and resolves with the oldest `count` of them in full. The server holds each request at most 25 s; this repeats it
   * until the time is up, then throws the last TempMailApiError 408, whose `details.near_misses` lists the latest
   * messages that did not match and why. `exact`: more than `count` matching throws 409.
   */
  async waitFor(inboxId: string, options: WaitForOptions = {}): Promise<WaitMessages> {
    const { timeout = DEFAULT_WAIT_SECONDS, ...body } = options;
    const deadline = Date.now() + timeout * 1000;
    for (;;) {
      const hold = Math.max(1, Math.min(MAX_WAIT_SECONDS_PER_REQUEST, Math.ceil((deadline - Date.now()) / 1000)));
      try {
        return await this.json<WaitMessages>('POST', `/v1/inboxes/${segment(inboxId)}/messages/wait`, { body: { ...body, timeout: hold }, extraTimeoutMs: hold * 1000 });
      } catch (error) {
        if (!(error instanceof TempMailApiError && error.status === 408) || deadline - Date.now() < 1000) throw error;
      }
    }
  }

  /**
   * Resolves when no message matches the conditions for `timeout` seconds (any length, default 20); throws
   * TempMailApiError 409 naming the message (`details.message_id`) as soon as one does. "Nothing was sent."
   */
  async expectNoMessage(inboxId: string, options: ExpectNoMessageOptions = {}): Promise<void> {
    const { timeout = DEFAULT_WAIT_SECONDS, ...body } = options;
    const deadline = Date.now() + timeout * 1000;
    // At least one request, however short the timeout (a loop that checked first skipped the server when the clock
    // had moved a millisecond past a 1 s timeout); then one more while a whole second is left.
    do {
      const hold = Math.max(1, Math.min(MAX_WAIT_SECONDS_PER_REQUEST, Math.floor((deadline - Date.now()) / 1000)));
      await this.request('POST', `/v1/inboxes/${segment(inboxId)}/messages/wait`, { body: { ...body, none: true, timeout: hold }, extraTimeoutMs: hold * 1000 });
    } while (deadline - Date.now() >= 1000);
  }

  listDomains(): Promise<Domains> {
    return this.json('GET', '/v1/domains');
  }

  /** Registers a webhook; the answer's `secret` (whsec_…) is shown only here: keep it to verify deliveries. */
  createWebhook(input: CreateWebhookInput): Promise<WebhookCreated> {
    return this.json('POST', '/v1/webhooks', { body: input });
  }

  listWebhooks(query: { limit?: number; cursor?: string } = {}): Promise<WebhookList> {
    return this.json('GET', '/v1/webhooks', { query });
  }

  async getWebhook(webhookId: string): Promise<Webhook> {
    return this.json('GET', `/v1/webhooks/${segment(webhookId)}`);
  }

  async deleteWebhook(webhookId: string): Promise<Deleted> {
    return this.json('DELETE', `/v1/webhooks/${segment(webhookId)}`);
  }

  /** Queues a `webhook.test` event to the endpoint now. */
  async testWebhook(webhookId: string): Promise<WebhookTestQueued> {
    return this.json('POST', `/v1/webhooks/${segment(webhookId)}/test`);
  }

  /** Recent delivery attempts, newest first. */
  async listWebhookDeliveries(webhookId: string): Promise<WebhookDeliveries> {
    return this.json('GET', `/v1/webhooks/${segment(webhookId)}/deliveries`);
  }

  /** The API's OpenAPI 3.1 document. */
  openApi(): Promise<Record<string, unknown>> {
    return this.json('GET', '/v1/openapi.json');
  }

  private async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.request(method, path, options);
    return (await res.json()) as T;
  }

  private async request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    for (let retries = 0; ; retries++) {
      try {
        return await this.once(method, path, options);
      } catch (error) {
        const delayMs = this.retryDelayMs(error, method, retries);
        if (delayMs === undefined) throw error;
        await sleep(delayMs);
      }
    }
  }

  /** How long to wait before retrying, or undefined when the error is final. */
  private retryDelayMs(error: unknown, method: string, retries: number): number | undefined {
    if (!(error instanceof TempMailApiError) || retries >= this.retryAttempts) return undefined;
    const retryable = error.status === 429 || (error.status === 503 && method !== 'POST');
    if (!retryable) return undefined;
    const delayMs = error.retryAfter !== undefined ? error.retryAfter * 1000 : 1000 * 2 ** retries;
    return delayMs <= this.maxRetryDelayMs ? delayMs : undefined;
  }

  private async once(method: string, path: string, options: RequestOptions): Promise<Response> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method,
        headers: { 'X-API-Key': this.apiKey, ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(this.timeoutMs + (options.extraTimeoutMs ?? 0)),
        redirect: options.redirect ?? 'follow',
      });
    } catch (error) {
      throw new TempMailNetworkError(`cannot reach the TempMail API at ${this.baseUrl}: ${(error as Error).message}`, { cause: error });
    }
    if (res.ok || (options.redirect === 'manual' && ((res.status >= 300 && res.status < 400) || res.type === 'opaqueredirect'))) return res;
    const requestId = res.headers.get('x-request-id') ?? undefined;
    const retryAfter = retryAfterOf(res);
    let message = `HTTP ${res.status}`;
    let details: Record<string, unknown> = {};
    try {
      const body = (await res.json()) as { error?: { message?: string; code?: unknown } };
      if (body.error?.message) {
        message = body.error.message;
        details = Object.fromEntries(Object.entries(body.error).filter(([name]) => name !== 'code' && name !== 'message'));
      }
    } catch {
      // not the error format: keep the status line
    }
    throw new TempMailApiError(res.status, message, requestId, retryAfter, details);
  }
}

/** An answer's Retry-After in seconds, when it gives one as a number. */
function retryAfterOf(res: Response): number | undefined {
  const header = res.headers.get('retry-after');
  return header && /^\d+$/.test(header) ? Number(header) : undefined;
}
