/**
 * A message's objects, written by ingest (ingest.ts) before its item: the raw copy, the attachments, the body object
 * when the item cannot hold the bodies; and the item itself, made from the parse. Where the local spool holds the raw
 * mail already, the raw copy and lifted attachments are kept there (HeldBody), not written again.
 */
import { extractCodes, extractLinks } from '../core/extract';
import { MESSAGE_CAPS } from '../core/limits';
import { jsonInSlices } from '../core/json-slices';
import { BODY_KEPT_CHARS, boundedFileName, boundedHeaders, boundedLinks, keptBody, messageItem, summaryFields } from '../core/message';
import type { AttachmentRecord, AuthVerdicts, InboxRoute, MessageRecord } from '../core/model';
import { extractable } from '../core/mail-text';
import { blobKeys, heldBytes, type HeldBody, type ParsedMail } from '../core/ports';
import type { AppContext } from './context';

export interface InboundMail {
  /** SES's message id (locally: the SMTP stand-in's). The raw message is at `inbound/<id>`. */
  mailId: string;
  recipients: string[];
  envelopeFrom: string;
  receivedAtMs: number;
  verdicts: AuthVerdicts;
  /** The raw mail, when the caller holds it already (the local form's spool): used as it is, never read back. */
  raw?: Buffer;
  /** Where the local form's spool holds `raw` durably: the store may keep it there instead of writing it again. */
  rawHeld?: { segment: number; offset: number };
}

/** An attachment whose base64 body lies in the raw mail the spool holds: the store may keep it there, decoded on read. */
function heldAttachment(a: ParsedMail['attachments'][number], mail: InboundMail): HeldBody | undefined {
  const { base64Span: span } = a;
  if (!span || !mail.rawHeld) return undefined;
  const held = { segment: mail.rawHeld.segment, offset: mail.rawHeld.offset + span.start, length: span.end - span.start, encoding: 'base64' as const };
  // Its content is read (decoded: lift-parts.ts) only if the store writes the bytes after all.
  return { held, size: a.size, bytes: () => a.content };
}

/** An envelope address is at most 256 octets (RFC 5321 §4.5.3.1.3); anything longer is cut, never refused here. */
const MAX_ENVELOPE_ADDRESS = 256;

/** Codes and links of a parse, found once however many inboxes the mail goes to. */
const found = new WeakMap<ParsedMail, { codes: string[]; links: string[]; links_truncated: boolean }>();
function extracted(parsed: ParsedMail) {
  let result = found.get(parsed);
  if (!result) {
    // A held body's head is all extraction reads of it (EXTRACT_SCAN_CHARS): the same codes and links.
    const [text, html] = [extractable(parsed.text), extractable(parsed.html)];
    found.set(parsed, (result = { codes: extractCodes(parsed.subject, text), ...boundedLinks(extractLinks(html, text)) }));
  }
  return result;
}

/**
 * Writes the message's objects (raw copy, attachments, the body object when needed) and returns the item to store
 * and where the attachments now are (the item lists them only while its detail is inline).
 * `attachmentSources`: where the attachments are stored already (another inbox's copies of this mail), in order.
 */
export async function storeBlobs(
  ctx: AppContext,
  inbox: InboxRoute,
  recipient: string,
  messageId: string,
  rawKey: string,
  parsed: ParsedMail,
  size: number,
  mail: InboundMail,
  attachmentSources?: string[],
): Promise<{ record: MessageRecord; attachmentKeys: string[] }> {
  const { blobs } = ctx.stores;
  const raw = blobKeys.raw(inbox.id, messageId);
  // Held in memory (the local spool): kept where the spool holds it, or written once; else copied from the inbound object.
  const copied = mail.raw ? blobs.put(raw, mail.rawHeld ? heldBytes(mail.raw, mail.rawHeld) : mail.raw, 'message/rfc822') : blobs.copy(rawKey, raw);
  copied.catch(() => undefined); // awaited below
  const attachments: AttachmentRecord[] = await Promise.all(
    parsed.attachments.slice(0, MESSAGE_CAPS.attachments).map(async (a, i) => {
      const id = `att_${i + 1}`;
      const key = blobKeys.attachment(inbox.id, messageId, id);
      const source = attachmentSources?.[i];
      // A copy that fails (its source deleted meanwhile with its inbox) is an upload after all.
      if (source) await blobs.copy(source, key).catch(() => blobs.put(key, a.content, a.content_type));
      else await blobs.put(key, heldAttachment(a, mail) ?? a.content, a.content_type);
      return { id, filename: boundedFileName(a.filename), content_type: a.content_type.slice(0, 200), size: a.size, content_id: a.content_id?.slice(0, 998) ?? null, key };
    }),
  );
  const { summary, whole } = summaryFields(parsed);
  const { record, body } = messageItem(
    {
      id: messageId,
      inbox_id: inbox.id,
      ...summary,
      from: summary.from || mail.envelopeFrom,
      to: inbox.email,
      // The envelope recipient as sent (its +tag kept: tests correlate on it), bounded like any address we keep.
      envelope: { from: mail.envelopeFrom.slice(0, MAX_ENVELOPE_ADDRESS), to: recipient.slice(0, MAX_ENVELOPE_ADDRESS) },
      received_at: new Date(mail.receivedAtMs).toISOString(),
      size,
      auth: mail.verdicts,
      raw_key: raw,
      // What this message keeps in the bucket toward the storage quota: its raw copy and its attachments.
      stored_bytes: size + attachments.reduce((sum, a) => sum + a.size, 0),
    },
    {
      text: keptBody(parsed.text),
      html: keptBody(parsed.html),
      attachments,
      attachment_count: parsed.attachments.length,
      ...extracted(parsed),
      cc: parsed.cc,
      reply_to: parsed.reply_to,
      message_id: parsed.message_id,
      in_reply_to: parsed.in_reply_to,
      ...boundedHeaders(parsed.headers, parsed.header_count),
      parse_error: parsed.parse_error,
      ...whole,
      ...(parsed.text.length > BODY_KEPT_CHARS || parsed.html.length > BODY_KEPT_CHARS ? { bodies_cut: true as const } : {}),
    },
    blobKeys.body(inbox.id, messageId),
  );
  if (body !== null) await blobs.put(record.body_key!, await jsonInSlices(body), 'application/json');
  await copied;
  return { record, attachmentKeys: attachments.map((a) => a.key) };
}
