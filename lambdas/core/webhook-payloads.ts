/** The bodies of webhook events, fixed when the event happens: every attempt sends the same bytes. */
import { EVENT_PREVIEW } from './limits';
import type { InboxRecord, MessageRecord } from './model';
import type { DeliveredEventType } from './webhooks';

// The event's outer object; "envelope" is kept for the mail's SMTP envelope, which message.received carries.
const eventBody = (type: DeliveredEventType, nowMs: number, data: unknown): string =>
  JSON.stringify({ type, timestamp: new Date(nowMs).toISOString(), data });

export function messageReceivedPayload(message: MessageRecord, apiUrl: string | undefined, nowMs: number): string {
  const path = `/v1/inboxes/${message.inbox_id}/messages/${message.id}`;
  return eventBody('message.received', nowMs, {
    inbox: { id: message.inbox_id, email: message.to },
    message: {
      id: message.id,
      from: message.from,
      from_name: message.from_name ?? null,
      envelope: message.envelope ?? null,
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
  eventBody('inbox.expired', nowMs, { inbox: { id: inbox.id, email: inbox.email, created_at: inbox.created_at, expires_at: inbox.expires_at } });

export const testPayload = (webhookId: string, nowMs: number): string => eventBody('webhook.test', nowMs, { webhook_id: webhookId });
