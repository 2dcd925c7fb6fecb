/** Webhooks and their delivery attempts as the API shows them, field for field as the specification names them. */
import type { DeliveryRecord, WebhookRecord } from '../core/webhooks';

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
