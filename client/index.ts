/**
 * A typed client for the TempMail REST API: fetch only, no dependencies, so the MCP server, the CLI and tests can
 * all carry it.
 */
import type { Deleted, Inbox, InboxCreated, InboxList, Message, MessageList, WaitResult } from './types';

export * from './types';

/** An answer in the API's error format: `status` is the HTTP status, `message` the API's own words. */
export class TempMailApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId?: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'TempMailApiError';
  }

  /** Equal to the HTTP status, as in the error body. */
  get code(): number {
    return this.status;
  }
}

/** The API could not be reached at all (connection refused, timeout). */
export class TempMailNetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TempMailNetworkError';
  }
}

export interface ClientOptions {
  apiKey: string;
  /** Without /v1. Default http://127.0.0.1:3000, the local stack. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Per request; the wait endpoint adds its own timeout on top. Default 30 s. */
  timeoutMs?: number;
}

type Query = Record<string, string | number | undefined>;

export class TempMailClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = (options.baseUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  createInbox(body: { domain?: string; username?: string; ttl?: number } = {}): Promise<InboxCreated> {
    return this.json('POST', '/v1/inboxes', { body });
  }

  /** The caller's inboxes, newest first; expired ones are listed (status "expired") until they are removed. */
  listInboxes(query: { limit?: number; cursor?: string } = {}): Promise<InboxList> {
    return this.json('GET', '/v1/inboxes', { query });
  }

  getInbox(inboxId: string): Promise<Inbox> {
    return this.json('GET', `/v1/inboxes/${enc(inboxId)}`);
  }

  deleteInbox(inboxId: string): Promise<Deleted> {
    return this.json('DELETE', `/v1/inboxes/${enc(inboxId)}`);
  }

  /** `q`, `from`, `subject`: case-insensitive substring filters; a filtered page may be short while next_cursor is set. */
  listMessages(inboxId: string, query: { limit?: number; cursor?: string; q?: string; from?: string; subject?: string } = {}): Promise<MessageList> {
    return this.json('GET', `/v1/inboxes/${enc(inboxId)}/messages`, { query });
  }

  getMessage(inboxId: string, messageId: string): Promise<Message> {
    return this.json('GET', `/v1/inboxes/${enc(inboxId)}/messages/${enc(messageId)}`);
  }

  async getRawMessage(inboxId: string, messageId: string): Promise<Uint8Array> {
    const res = await this.request('GET', `/v1/inboxes/${enc(inboxId)}/messages/${enc(messageId)}/raw`);
    return new Uint8Array(await res.arrayBuffer());
  }

  deleteMessage(inboxId: string, messageId: string): Promise<Deleted> {
    return this.json('DELETE', `/v1/inboxes/${enc(inboxId)}/messages/${enc(messageId)}`);
  }

  /** Holds up to `timeout` seconds (1–25) for a message newer than `after` matching `from` / `subject`. */
  waitForMessage(inboxId: string, query: { timeout?: number; after?: string; from?: string; subject?: string } = {}): Promise<WaitResult> {
    return this.json('GET', `/v1/inboxes/${enc(inboxId)}/messages/wait`, { query, extraTimeoutMs: (query.timeout ?? 20) * 1000 });
  }

  listDomains(): Promise<{ domains: string[] }> {
    return this.json('GET', '/v1/domains');
  }

  openApi(): Promise<Record<string, unknown>> {
    return this.json('GET', '/v1/openapi.json');
  }

  private async json<T>(method: string, path: string, options: { body?: unknown; query?: Query; extraTimeoutMs?: number } = {}): Promise<T> {
    const res = await this.request(method, path, options);
    return (await res.json()) as T;
  }

  private async request(method: string, path: string, options: { body?: unknown; query?: Query; extraTimeoutMs?: number } = {}): Promise<Response> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method,
        headers: { 'X-API-Key': this.options.apiKey, ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(this.timeoutMs + (options.extraTimeoutMs ?? 0)),
      });
    } catch (error) {
      throw new TempMailNetworkError(`cannot reach the TempMail API at ${this.baseUrl}: ${(error as Error).message}`, { cause: error });
    }
    if (res.ok) return res;
    const requestId = res.headers.get('x-request-id') ?? undefined;
    const retryAfter = res.headers.get('retry-after') ? Number(res.headers.get('retry-after')) : undefined;
    let message = `HTTP ${res.status}`;
    try {
      const body = (await res.json()) as { error?: { message?: string } };
      if (body.error?.message) message = body.error.message;
    } catch {
      // not the error format: keep the status line
    }
    throw new TempMailApiError(res.status, message, requestId, retryAfter);
  }
}

const enc = encodeURIComponent;
