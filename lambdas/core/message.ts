/**
 * Bounded message records. Mail is written by strangers: a 450 KB folded Subject, 25,000 links or 990 attachments
 * with 400-character names once went inline into one DynamoDB item, which refused it ("Item size has exceeded the
 * maximum allowed size") on every retry. Here every list and long field is capped (MESSAGE_CAPS), the summary
 * fields are cut, and the detail stays in the item only while it is small; otherwise it goes to the message's body
 * object. An item is therefore at most about INLINE_DETAIL_BYTES + 10 KB, whatever the mail holds. No I/O.
 */
import { EXTRACT_SCAN_CHARS } from './extract';
import { EVENT_PREVIEW, INLINE_DETAIL_BYTES, MESSAGE_CAPS, MESSAGE_RESPONSE_SHARES } from './limits';
import type { MailHeader, MessageDetail, MessageRecord } from './model';
import type { MailText } from './mail-text';
import type { CutJson } from './ports';

/** A UTF-16 surrogate without its other half: no character at all. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `value` as well-formed Unicode: each half of a surrogate pair standing alone becomes U+FFFD. */
export const wellFormed = (value: string): string => value.replace(LONE_SURROGATE, '\ufffd');

/** The first `max` characters, never splitting a surrogate pair. */
export function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = /[\ud800-\udbff]/.test(value[max - 1]) ? max - 1 : max;
  return value.slice(0, end);
}

/**
 * How much of a text or an HTML body a message keeps, and a read of its body object takes: more than any answer
 * carries (each body's share of Lambda's 6 MB) and than code and link extraction read. A 38 MB text stored whole was
 * never served past this, and its body object took 0.2-1.6 s to read; 41 MB of control characters made a 492 MB one
 * (each escaped in 6 bytes). The whole mail is in the raw copy.
 */
export const BODY_KEPT_CHARS = Math.max(MESSAGE_RESPONSE_SHARES.body, EXTRACT_SCAN_CHARS);

/** What a message keeps of a body: its first BODY_KEPT_CHARS characters (a held one is kept so already). */
export const keptBody = (text: MailText): MailText => (typeof text === 'string' ? cut(text, BODY_KEPT_CHARS) : text);

/** A JSON object's string fields, each cut to `max` characters (BlobStore.getJson). */
export function cutStrings(value: Record<string, unknown>, max: number): CutJson {
  const wasCut: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (typeof field === 'string' && field.length > max) wasCut.push(key);
    out[key] = typeof field === 'string' ? cut(field, max) : field;
  }
  return { value: out, cut: wasCut };
}

/** A JSON object's text, parsed, its strings cut to `max` characters (cutStrings). */
export const cutJson = (json: string, max: number): CutJson => cutStrings(JSON.parse(json) as Record<string, unknown>, max);

/** An attachment name within MESSAGE_CAPS.filenameChars, its extension kept. */
export function boundedFileName(name: string | null): string | null {
  if (name === null || name.length <= MESSAGE_CAPS.filenameChars) return name;
  const extension = /\.[A-Za-z0-9]{1,10}$/.exec(name)?.[0] ?? '';
  return cut(name, MESSAGE_CAPS.filenameChars - extension.length) + extension;
}

export function boundedLinks(links: string[]): { links: string[]; links_truncated: boolean } {
  const kept = links.filter((l) => l.length <= MESSAGE_CAPS.linkChars);
  return { links: kept.slice(0, MESSAGE_CAPS.links), links_truncated: kept.length > MESSAGE_CAPS.links || kept.length < links.length };
}

export function boundedHeaders(headers: MailHeader[], count: number): { headers: MailHeader[]; headers_truncated: boolean } {
  let valueCut = false;
  const kept = headers.slice(0, MESSAGE_CAPS.headers).map((h) => {
    if (h.value.length <= MESSAGE_CAPS.headerValueChars && h.name.length <= 200) return h;
    valueCut = true;
    return { name: cut(h.name, 200), value: cut(h.value, MESSAGE_CAPS.headerValueChars) };
  });
  return { headers: kept, headers_truncated: valueCut || count > kept.length };
}

/** What ends a subject cut in the summary (lists, wait): a reader sees it was cut, and the message has it whole. */
export const SUBJECT_CUT_MARK = '\u2026';

/** The summary's subject and from name, cut; the detail keeps the whole ones when they were. */
export function summaryFields(mail: { from: string; from_name: string | null; subject: string }) {
  const max = MESSAGE_CAPS.summarySubjectChars;
  const subject = mail.subject.length <= max ? mail.subject : cut(mail.subject, max - SUBJECT_CUT_MARK.length) + SUBJECT_CUT_MARK;
  const fromName = mail.from_name === null ? null : cut(mail.from_name, MESSAGE_CAPS.summaryFromNameChars);
  return {
    summary: { from: cut(mail.from, MESSAGE_CAPS.addressChars), from_name: fromName, subject },
    whole: {
      ...(subject !== mail.subject ? { full_subject: mail.subject } : {}),
      ...(fromName !== mail.from_name && mail.from_name !== null ? { full_from_name: mail.from_name } : {}),
    },
  };
}

type RecordBase = Omit<MessageRecord, keyof MessageDetail | 'body_key'>;

/** A message's detail as ingest has it: its text and HTML as the MailParser gave them (held off this thread or not). */
export type DetailToStore = Omit<MessageDetail, 'text' | 'html'> & { text: MailText; html: MailText };

/** The detail, when both its bodies are strings (a held one is long: it never goes inline). */
function inThisThread(detail: DetailToStore): MessageDetail | null {
  const { text, html } = detail;
  return typeof text === 'string' && typeof html === 'string' ? { ...detail, text, html } : null;
}

/**
 * The item to store and, when the detail is too large for it, the body object (to be written at `bodyKey` as JSON,
 * made by jsonInSlices: a large one is never serialised here, in one call on the event loop).
 */
export function messageItem(base: RecordBase, stored: DetailToStore, bodyKey: string): { record: MessageRecord; body: DetailToStore | null } {
  // Bodies alone past the budget: no need to serialize everything to know.
  const detail = stored.text.length + stored.html.length > INLINE_DETAIL_BYTES ? null : inThisThread(stored);
  const json = detail === null ? null : JSON.stringify(detail);
  if (detail !== null && json !== null && Buffer.byteLength(json) <= INLINE_DETAIL_BYTES) {
    const record = Object.freeze({ ...base, ...detail });
    // The detail's JSON, made to size it, is most of the record's: the record's JSON is the base's joined to it
    // (the two share no key, and both have some), in the spread's key order, so JSON.parse gives `record` back.
    serialised.set(record, `${JSON.stringify(base).slice(0, -1)},${json.slice(1)}`);
    return { record, body: null };
  }
  return { record: { ...base, body_key: bodyKey, ...eventPreview(stored) }, body: stored };
}

/** The JSON of records messageItem made, kept so that a store writing JSON does not serialise them again. */
const serialised = new WeakMap<MessageRecord, string>();

/** A message record as JSON: the form messageItem made of it (the record is frozen, so it is current), else made now. */
export function recordJson(record: MessageRecord): string {
  return serialised.get(record) ?? JSON.stringify(record);
}

/** The codes, links and attachment count a message.received event carries (EVENT_PREVIEW), for an item without its detail. */
function eventPreview(detail: DetailToStore): Pick<MessageDetail, 'codes' | 'links' | 'attachment_count'> {
  const codes = detail.codes.slice(0, EVENT_PREVIEW.listed);
  let room = EVENT_PREVIEW.bytes - codes.reduce((sum, code) => sum + code.length, 0);
  const links: string[] = [];
  for (const link of detail.links.slice(0, EVENT_PREVIEW.listed)) {
    if (link.length > room) break;
    links.push(link);
    room -= link.length;
  }
  return { codes, links, attachment_count: detail.attachment_count };
}

/** A stored message's detail: the item's fields, overlaid by its body object's (records of every version). */
export function messageDetail(record: MessageRecord, bodyObject: Partial<MessageDetail> | null): MessageDetail {
  const m = { ...record, ...(bodyObject ?? {}) };
  const attachments = m.attachments ?? [];
  return {
    text: m.text ?? '',
    html: m.html ?? '',
    attachments,
    attachment_count: m.attachment_count ?? attachments.length,
    codes: m.codes ?? [],
    links: m.links ?? [],
    links_truncated: m.links_truncated ?? false,
    cc: m.cc ?? [],
    reply_to: m.reply_to ?? [],
    message_id: m.message_id ?? null,
    in_reply_to: m.in_reply_to ?? null,
    headers: m.headers ?? [],
    headers_truncated: m.headers_truncated ?? false,
    parse_error: m.parse_error ?? null,
    ...(m.full_subject !== undefined ? { full_subject: m.full_subject } : {}),
    ...(m.full_from_name !== undefined ? { full_from_name: m.full_from_name } : {}),
    ...(m.bodies_cut === true ? { bodies_cut: true as const } : {}),
  };
}
