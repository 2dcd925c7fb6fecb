/**
 * Webhooks, the domain records shared by both forms (the local dispatcher and the AWS stream/SQS functions run the
 * same use cases on them): a webhook, one delivery attempt, a pending delivery (job); their ids; which events a
 * webhook receives. The rest of the rules are beside this file, one concern each: webhook-signing.ts (Standard
 * Webhooks signatures), webhook-retries.ts (what happens after an attempt), webhook-destinations.ts (the SSRF rule),
 * webhook-payloads.ts (the event bodies). The API's views of them are in lambdas/contract/webhook-views.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { base32 } from './ids';

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

// --- ids -----------------------------------------------------------------------------------------

export const WEBHOOK_ID = /^wh_[0-9a-hjkmnp-tv-z]{20}$/;
export const newWebhookId = (): string => `wh_${base32(randomBytes(13), 20)}`;

/**
 * The event id of an event for one webhook: derived from what happened (the message, the inbox), so an event
 * emitted twice (a retried ingest, a second sweep) carries the same `webhook-id` and receivers de-duplicate it.
 */
export const eventIdFor = (webhookId: string, type: DeliveredEventType, subjectId: string): string =>
  `evt_${base32(createHash('sha256').update(`${webhookId}\n${type}\n${subjectId}`).digest(), 26)}`;
export const newEventId = (): string => `evt_${base32(randomBytes(17), 26)}`;

// --- events ------------------------------------------------------------------------------------------------------

/** Whether a webhook receives an event of this type about this inbox. */
export const covers = (hook: WebhookRecord, type: WebhookEventType, inboxId: string): boolean =>
  hook.status === 'enabled' && hook.events.includes(type) && (hook.inbox_id === null || hook.inbox_id === inboxId);
