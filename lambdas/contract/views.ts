/** Response shapes, field for field as the specification names them. */
import { isExpired } from '../core/inbox';
import { extractVerification } from '../core/extract';
import type { SnapshotFields } from '../core/snapshot';
import { summaryOf } from '../core/model';
import type { AttachmentRecord, InboxListing, InboxRecord, MessageDetail, MessageRecord, MessageSummary } from '../core/model';
import { MESSAGE_RESPONSE_SHARES as SHARES } from '../core/limits';

export const inboxCreatedView = (inbox: InboxRecord) => ({
  id: inbox.id,
  email: inbox.email,
  created_at: inbox.created_at,
  expires_at: inbox.expires_at,
  ttl: inbox.ttl,
  group: inbox.group ?? null,
});

/** `nowMs` decides the status: an expired inbox is listed as such until it is removed. */
export const inboxView = (inbox: InboxListing, nowMs: number) => ({
  id: inbox.id,
  email: inbox.email,
  created_at: inbox.created_at,
  expires_at: inbox.expires_at,
  message_count: inbox.message_count,
  status: isExpired(inbox.expires_at_epoch, nowMs) ? ('expired' as const) : ('active' as const),
  group: inbox.group ?? null,
});

/** A message in a list: its MESSAGE_SUMMARY_FIELDS (core/model.ts), null for what a record from before lacks. */
export const summaryView = (m: MessageSummary) => ({
  ...summaryOf(m),
  from_name: m.from_name ?? null,
  envelope: m.envelope ?? null,
});

/** `downloadUrl` null: not served (core/downloads.ts downloadRefusal). */
export const attachmentView = (a: AttachmentRecord, downloadUrl: string | null) => ({
  id: a.id,
  filename: a.filename,
  content_type: a.content_type,
  size: a.size,
  content_id: a.content_id,
  download_url: downloadUrl,
});

/**
 * How many of `value`'s characters fit in `budget` bytes of Lambda's response (the message's JSON inside the proxy
 * result's JSON: escaped twice), never splitting a surrogate pair. One pass, counting what each character costs.
 */
export function prefixWithin(value: string, budget: number): number {
  if (value.length * 7 <= budget) return value.length; // fits however it escapes
  let used = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    let cost = 3;
    let width = 1;
    if (code === 0x22 || code === 0x5c) cost = 4; // " → \" → \\\"
    else if (code < 0x20) cost = code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 3 : 7; // \n → \\n, \u0001 → \\u0001
    else if (code < 0x80) cost = 1;
    else if (code < 0x800) cost = 2;
    else if (code >= 0xd800 && code <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        cost = 4;
        width = 2;
      } else cost = 7; // a lone surrogate is escaped: \udXXX
    }
    if (used + cost > budget) return i;
    used += cost;
    i += width - 1;
  }
  return value.length;
}

const within = (value: string, budget: number) => value.slice(0, prefixWithin(value, budget));

/** The first items whose JSON fits in `budget` bytes of the response. */
function listWithin<T>(items: T[], budget: number): T[] {
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    used += Buffer.byteLength(JSON.stringify(JSON.stringify(items[i]))) - 1; // escaped twice, without the quotes, and a comma
    if (used > budget) return items.slice(0, i);
  }
  return items;
}

/**
 * A message in full: its summary fields (whole where the summary's are cut), its detail (see core/message.ts), a
 * download link per attachment; each part cut to its share of Lambda's 6 MB response (MESSAGE_RESPONSE_SHARES), so
 * that every message can be read.
 */
export const messageView = (m: MessageRecord, detail: MessageDetail, downloadUrls: (string | null)[]) => {
  const text = within(detail.text, SHARES.body);
  const html = within(detail.html, SHARES.body);
  const headers = listWithin(detail.headers, SHARES.headers);
  const links = listWithin(detail.links, SHARES.links);
  const attachments = listWithin(
    detail.attachments.map((a, i) => attachmentView(a, downloadUrls[i])),
    SHARES.attachments,
  );
  const subject = detail.full_subject ?? m.subject;
  // Derived on read from what the message keeps, so every message has it (those stored before it too).
  const found = extractVerification(subject, detail.text, detail.html);
  const verificationLinks = listWithin(found.links, SHARES.verification);
  const fromName = detail.full_from_name ?? m.from_name ?? null;
  const orNull = (value: string | null, budget: number = SHARES.other) => (value === null ? null : within(value, budget));
  return {
    ...summaryView(m),
    from_name: orNull(fromName, SHARES.fromName),
    to: m.to,
    cc: listWithin(detail.cc, SHARES.addresses),
    reply_to: listWithin(detail.reply_to, SHARES.addresses),
    subject: within(subject, SHARES.subject),
    text,
    html,
    body_truncated: text.length < detail.text.length || html.length < detail.html.length || detail.bodies_cut === true,
    message_id: orNull(detail.message_id),
    in_reply_to: orNull(detail.in_reply_to),
    attachments,
    attachment_count: detail.attachment_count,
    attachments_truncated: detail.attachment_count > attachments.length,
    codes: detail.codes,
    links,
    links_truncated: detail.links_truncated || links.length < detail.links.length,
    verification: {
      codes: found.codes,
      links: verificationLinks,
      links_truncated: found.links_truncated || verificationLinks.length < found.links.length,
    },
    headers,
    headers_truncated: detail.headers_truncated || headers.length < detail.headers.length,
    auth: m.auth,
    parse_error: orNull(detail.parse_error),
  };
};


/** A message's snapshot (core/snapshot.ts), each field cut to the share a message's has. */
/** `readCut`: the bodies it was made from were read cut (storedDetail's bodies_cut), so it is not whole either. */
export const snapshotView = (id: string, snapshot: SnapshotFields, readCut = false) => {
  const subject = within(snapshot.subject, SHARES.subject);
  const text = within(snapshot.text, SHARES.body);
  const html = within(snapshot.html, SHARES.body);
  const cut = subject.length + text.length + html.length < snapshot.subject.length + snapshot.text.length + snapshot.html.length;
  return { id, subject, text, html, truncated: readCut || cut };
};
