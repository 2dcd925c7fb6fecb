/**
 * Webhooks, the domain rules without I/O, shared by both forms (the local dispatcher and the AWS stream/SQS
 * functions run the same use cases on them):
 * - records: a webhook, one delivery attempt, a pending delivery (job);
 * - Standard Webhooks (standardwebhooks.com) signing: `whsec_` secrets, `webhook-id` / `webhook-timestamp` /
 *   `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, so receivers verify with its libraries;
 * - the retry rule: what happens after an attempt (delivered, retry later, disable);
 * - the SSRF rule: which URLs and which resolved addresses a delivery may go to;
 * - the event payloads.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { badRequest } from './errors';
import { EVENT_PREVIEW } from './limits';
import { base32 } from './ids';
import type { InboxRecord, MessageRecord } from './model';

export const WEBHOOK_EVENTS = ['message.received', 'inbox.expired'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** Sent by POST /v1/webhooks/{id}/test only; never subscribed to. */
export type DeliveredEventType = WebhookEventType | 'webhook.test';

export interface WebhookRecord {
  id: string;
  account_id: string;
  url: string;
  /** null: every inbox of the account. */
  inbox_id: string | null;
  events: WebhookEventType[];
  description: string | null;
  /** The signing secret, sealed (SecretBox); never the secret itself. */
  secret_sealed: string;
  created_at: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: string | null;
}

/** One attempt to deliver one event, as GET /v1/webhooks/{id}/deliveries shows it. */
export interface DeliveryRecord {
  webhook_id: string;
  /** The `webhook-id` header: the same on every attempt of one event. */
  event_id: string;
  event_type: DeliveredEventType;
  attempt: number;
  attempted_at: string;
  /** The receiver's HTTP status, or null when there was no answer (see error). */
  status: number | null;
  error: string | null;
  duration_ms: number;
  /** At most RESPONSE_EXCERPT_BYTES of the answer's body; nothing more of it is kept. */
  response_excerpt: string | null;
  outcome: 'delivered' | 'retrying' | 'failed' | 'disabled';
  next_retry_at: string | null;
}

/** A delivery waiting for its next attempt (the local queue's row; on AWS an SQS message's body). */
export interface DeliveryJob {
  webhook_id: string;
  account_id: string;
  event_id: string;
  event_type: DeliveredEventType;
  /** The JSON body, fixed at the event: every attempt sends the same bytes. */
  payload: string;
  /** The number of the attempt this job makes (1 for the first). */
  attempt: number;
  /** Not before this time (epoch ms). */
  due_at_ms: number;
}

// --- ids and secrets -----------------------------------------------------------------------------------------

export const WEBHOOK_ID = /^wh_[0-9a-hjkmnp-tv-z]{20}$/;
export const newWebhookId = (): string => `wh_${base32(randomBytes(13), 20)}`;

/**
 * The event id of an event for one webhook: derived from what happened (the message, the inbox), so an event
 * emitted twice (a retried ingest, a second sweep) carries the same `webhook-id` and receivers de-duplicate it.
 */
export const eventIdFor = (webhookId: string, type: DeliveredEventType, subjectId: string): string =>
  `evt_${base32(createHash('sha256').update(`${webhookId}\n${type}\n${subjectId}`).digest(), 26)}`;
export const newEventId = (): string => `evt_${base32(randomBytes(17), 26)}`;

const SECRET_PREFIX = 'whsec_';
/** `whsec_` + base64 of 32 random bytes, the form Standard Webhooks libraries take. */
export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the secret's decoded bytes. */
export function signature(secret: string, eventId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${eventId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three Standard Webhooks headers of one attempt. The timestamp is the attempt's, the id the event's. */
export function signedHeaders(secret: string, job: Pick<DeliveryJob, 'event_id' | 'payload'>, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'webhook-id': job.event_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, job.event_id, timestamp, job.payload),
  };
}

// --- retries ---------------------------------------------------------------------------------------------------

/**
 * Seconds to wait before each retry: the schedule Standard Webhooks suggests (5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h): 8 attempts over 27.6 hours, so a receiver that is down for most of a day still gets every event.
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** An attempt gives up after this long without a complete answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Delivery records are kept this long (a TTL on AWS, a purge locally). */
export const DELIVERY_RECORD_SECONDS = 7 * 86_400;
export const RESPONSE_EXCERPT_BYTES = 256;
/** GET .../deliveries shows at most this many attempts, newest first. */
export const MAX_DELIVERIES_LISTED = 100;

export type AttemptResult = { status: number; excerpt: string | null; durationMs: number } | { error: string; durationMs: number };

export type AttemptDecision =
  | { kind: 'delivered' }
  | { kind: 'retry'; afterSeconds: number }
  | { kind: 'disable'; reason: string };

/** Any 2xx is success; 410 Gone disables at once; anything else is retried until the schedule is used up. */
export function afterAttempt(result: AttemptResult, attempt: number, schedule: readonly number[]): AttemptDecision {
  if ('status' in result && result.status >= 200 && result.status < 300) return { kind: 'delivered' };
  if ('status' in result && result.status === 410) return { kind: 'disable', reason: 'the endpoint answered 410 Gone' };
  if (attempt <= schedule.length) return { kind: 'retry', afterSeconds: schedule[attempt - 1] };
  const total = schedule.reduce((a, b) => a + b, 0);
  const last = 'status' in result ? `HTTP ${result.status}` : result.error;
  return { kind: 'disable', reason: `every attempt failed (${attempt} attempts over ${describeSeconds(total)}; the last: ${last})` };
}

function describeSeconds(s: number): string {
  if (s >= 3600) return `${Math.round((s / 3600) * 10) / 10} h`;
  if (s >= 60) return `${Math.round(s / 60)} min`;
  return `${s} s`;
}

/** `1,2,4` → [1, 2, 4]: the local setting that replaces the schedule (tests shorten it). */
export function parseRetrySchedule(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d{1,6}$/.test(p))) throw new Error(`a retry schedule is comma-separated whole seconds, e.g. 1,2,4; got "${value}"`);
  return parts.map(Number);
}

/** Printable, short: nothing of a response beyond RESPONSE_EXCERPT_BYTES is kept. */
export function responseExcerpt(body: Buffer): string | null {
  if (body.length === 0) return null;
  // eslint-disable-next-line no-control-regex
  return body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replace(/\uFFFD+$/, '').replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '');
}

// --- SSRF --------------------------------------------------------------------------------------------------------

/** Addresses a delivery may never reach (the AWS form always; locally with TEMPMAIL_WEBHOOK_ALLOW_PRIVATE=0). */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the instance metadata address 169.254.169.254 among them
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) FORBIDDEN.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: wraps any IPv4 address, private ones included
  ['fc00::', 7], // unique local (the instance metadata's IPv6 address fd00:ec2::254 among them)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) FORBIDDEN.addSubnet(net, bits, 'ipv6');
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/** The IPv4 address an IPv6 one wraps (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d), if any. */
function embeddedIpv4(address: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = parseInt(m[2], 16);
  const lo = parseInt(m[3], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Why an address may not receive deliveries, or null when it may (a public unicast address). */
export function forbiddenAddress(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return `not an IP address: ${address}`;
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4) return forbiddenAddress(v4);
    if (FORBIDDEN.check(bare, 'ipv6') || !GLOBAL_UNICAST_V6.check(bare, 'ipv6')) return `${address} is a loopback, private, link-local, unique-local, multicast or reserved address`;
    return null;
  }
  return FORBIDDEN.check(bare, 'ipv4') ? `${address} is a loopback, private, link-local, multicast or reserved address` : null;
}

export const MAX_URL_LENGTH = 2048;

/**
 * The checks on a URL itself (before any DNS): https only and no forbidden IP literal, unless private
 * destinations are allowed (the local form's default). Throws 400. The host name's addresses are checked at
 * creation and again at every delivery (DNS may change), by the sender.
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  if (raw.length > MAX_URL_LENGTH) throw badRequest(`url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('url must be an absolute http(s) URL');
  if (url.username || url.password) throw badRequest('url must not carry credentials; authenticate deliveries by their signature');
  if (url.hash) throw badRequest('url must not have a fragment');
  // Again as it is stored and sent: percent-encoding makes each non-ASCII character up to 9 (2,000 × "é" was 12 KB).
  if (url.href.length > MAX_URL_LENGTH) throw badRequest(`url must be at most ${MAX_URL_LENGTH} characters once encoded (${url.href.length})`);
  if (!allowPrivate) {
    if (url.protocol !== 'https:') throw badRequest('url must use https');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const why = forbiddenAddress(host);
      if (why) throw badRequest(`url refused: ${why}`);
    }
  }
  return url;
}

// --- events ------------------------------------------------------------------------------------------------------

/** Whether a webhook receives an event of this type about this inbox. */
export const covers = (hook: WebhookRecord, type: WebhookEventType, inboxId: string): boolean =>
  hook.status === 'enabled' && hook.events.includes(type) && (hook.inbox_id === null || hook.inbox_id === inboxId);

const envelope = (type: DeliveredEventType, nowMs: number, data: unknown): string =>
  JSON.stringify({ type, timestamp: new Date(nowMs).toISOString(), data });

export function messageReceivedPayload(message: MessageRecord, apiUrl: string | undefined, nowMs: number): string {
  const path = `/v1/inboxes/${message.inbox_id}/messages/${message.id}`;
  return envelope('message.received', nowMs, {
    inbox: { id: message.inbox_id, email: message.to },
    message: {
      id: message.id,
      from: message.from,
      from_name: message.from_name ?? null,
      subject: message.subject,
      received_at: message.received_at,
      size: message.size,
      codes: (message.codes ?? []).slice(0, EVENT_PREVIEW.listed),
      links: (message.links ?? []).slice(0, EVENT_PREVIEW.listed),
      attachments: message.attachment_count ?? message.attachments?.length ?? 0,
      url: apiUrl ? `${apiUrl.replace(/\/$/, '')}${path}` : path,
    },
  });
}

export const inboxExpiredPayload = (inbox: Pick<InboxRecord, 'id' | 'email' | 'created_at' | 'expires_at'>, nowMs: number): string =>
  envelope('inbox.expired', nowMs, { inbox: { id: inbox.id, email: inbox.email, created_at: inbox.created_at, expires_at: inbox.expires_at } });

export const testPayload = (webhookId: string, nowMs: number): string => envelope('webhook.test', nowMs, { webhook_id: webhookId });

// --- views and paging --------------------------------------------------------------------------------------------

export const webhookView = (hook: WebhookRecord) => ({
  id: hook.id,
  url: hook.url,
  inbox_id: hook.inbox_id,
  events: hook.events,
  description: hook.description,
  status: hook.status,
  disabled_reason: hook.disabled_reason,
  disabled_at: hook.disabled_at,
  created_at: hook.created_at,
});

export const deliveryView = (d: DeliveryRecord) => ({
  event_id: d.event_id,
  event_type: d.event_type,
  attempt: d.attempt,
  attempted_at: d.attempted_at,
  status: d.status,
  error: d.error,
  duration_ms: d.duration_ms,
  response_excerpt: d.response_excerpt,
  outcome: d.outcome,
  next_retry_at: d.next_retry_at,
});

export const encodeWebhookCursor = (lastId: string): string => Buffer.from(lastId, 'utf8').toString('base64url');
export function decodeWebhookCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!WEBHOOK_ID.test(id)) throw badRequest('cursor is not a cursor this API returned');
  return id;
}
