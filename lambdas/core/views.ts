/** Response shapes, field for field as the specification names them. */
import { isExpired } from './inbox';
import type { AttachmentRecord, InboxRecord, MessageDetail, MessageRecord, MessageSummary } from './model';
import { MESSAGE_CAPS } from './limits';

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

/** A message in full: its summary fields whole, its detail (see core/message.ts), a download link per attachment. */
/** A body cut to what a response can carry (MESSAGE_CAPS.bodyJsonBytes of JSON, escapes included). */
function boundedBody(body: string): { body: string; cut: boolean } {
  if (body.length * 6 <= MESSAGE_CAPS.bodyJsonBytes) return { body, cut: false }; // fits however it escapes
  let cut = body.slice(0, MESSAGE_CAPS.bodyJsonBytes);
  while (Buffer.byteLength(JSON.stringify(cut)) > MESSAGE_CAPS.bodyJsonBytes) cut = cut.slice(0, Math.floor(cut.length * 0.75));
  return { body: cut, cut: cut.length < body.length };
}

export const messageView = (m: MessageRecord, detail: MessageDetail, downloadUrls: string[]) => {
  const text = boundedBody(detail.text);
  const html = boundedBody(detail.html);
  return messageFields(m, { ...detail, text: text.body, html: html.body }, downloadUrls, text.cut || html.cut);
};

const messageFields = (m: MessageRecord, detail: MessageDetail, downloadUrls: string[], bodyTruncated: boolean) => ({
  id: m.id,
  from: m.from,
  from_name: detail.full_from_name ?? m.from_name ?? null,
  to: m.to,
  cc: detail.cc,
  reply_to: detail.reply_to,
  subject: detail.full_subject ?? m.subject,
  text: detail.text,
  html: detail.html,
  body_truncated: bodyTruncated,
  received_at: m.received_at,
  size: m.size,
  message_id: detail.message_id,
  in_reply_to: detail.in_reply_to,
  attachments: detail.attachments.map((a, i) => attachmentView(a, downloadUrls[i])),
  attachment_count: detail.attachment_count,
  attachments_truncated: detail.attachment_count > detail.attachments.length,
  codes: detail.codes,
  links: detail.links,
  links_truncated: detail.links_truncated,
  headers: detail.headers,
  headers_truncated: detail.headers_truncated,
  auth: m.auth,
  parse_error: detail.parse_error,
});
