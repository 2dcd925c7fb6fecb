/**
 * Standard Webhooks (standardwebhooks.com) signing: `whsec_` secrets, `webhook-id` / `webhook-timestamp` /
 * `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, so receivers verify with its libraries.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { DeliveryJob } from './webhooks';

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
