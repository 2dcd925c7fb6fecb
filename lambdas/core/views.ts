/** Response shapes, field for field as the specification names them. */
import { isExpired } from './inbox';
import type { AttachmentRecord, InboxRecord, MessageRecord, MessageSummary } from './model';

export const inboxCreatedView = (inbox: InboxRecord) => ({
  id: inbox.id,
  email: inbox.email,
  created_at: inbox.created_at,
  expires_at: inbox.expires_at,
  ttl: inbox.ttl,
});

/** `nowMs` decides the status: an expired inbox is listed as such until it is removed. */
export const inboxView = (inbox: InboxRecord, nowMs: number) => ({
  id: inbox.id,
  email: inbox.email,
  created_at: inbox.created_at,
  expires_at: inbox.expires_at,
  message_count: inbox.message_count,
  status: isExpired(inbox.expires_at_epoch, nowMs) ? ('expired' as const) : ('active' as const),
});

export const summaryView = (m: MessageSummary) => ({
  id: m.id,
  from: m.from,
  from_name: m.from_name ?? null,
  subject: m.subject,
  received_at: m.received_at,
  size: m.size,
});

export const attachmentView = (a: AttachmentRecord, downloadUrl: string) => ({
  id: a.id,
  filename: a.filename,
  content_type: a.content_type,
  size: a.size,
  content_id: a.content_id,
  download_url: downloadUrl,
});

export const messageView = (m: MessageRecord, body: { text: string; html: string }, downloadUrls: string[]) => ({
  id: m.id,
  from: m.from,
  from_name: m.from_name ?? null,
  to: m.to,
  subject: m.subject,
  text: body.text,
  html: body.html,
  received_at: m.received_at,
  size: m.size,
  attachments: m.attachments.map((a, i) => attachmentView(a, downloadUrls[i])),
  codes: m.codes,
  links: m.links,
  auth: m.auth,
});
