/**
 * ingestMessage: one received mail → one stored message per live inbox it was addressed to. Idempotent: the
 * message id derives from the mail's id and the inbox, and the store refuses a second copy.
 */
import { inboxAddressFor } from '../core/address';
import { extractCodes, extractLinks } from '../core/extract';
import { messageIdFrom } from '../core/ids';
import { isExpired, utcDay } from '../core/inbox';
import { INLINE_BODY_BYTES } from '../core/limits';
import type { AttachmentRecord, AuthVerdicts, InboxRoute, MessageRecord } from '../core/model';
import { blobKeys } from '../core/ports';
import type { AppContext } from '../usecases/context';
import { parseMail, type ParsedMail } from './parse-mail';

export interface InboundMail {
  /** SES's message id (locally: the SMTP stand-in's). The raw message is at `inbound/<id>`. */
  mailId: string;
  recipients: string[];
  envelopeFrom: string;
  receivedAtMs: number;
  verdicts: AuthVerdicts;
}

export type DropReason = 'not-our-domain' | 'unknown-inbox' | 'expired-inbox' | 'quota';
export type RecipientOutcome = { recipient: string; outcome: 'stored' | 'duplicate' | DropReason; messageId?: string };

/** Recipients grouped by the inbox address they deliver to: sub-addresses of one inbox count once. */
export function inboxAddresses(recipients: string[], domains: readonly string[]): Map<string, string> {
  const byAddress = new Map<string, string>();
  for (const recipient of recipients) {
    const address = inboxAddressFor(recipient, domains);
    if (address && !byAddress.has(address)) byAddress.set(address, recipient);
  }
  return byAddress;
}

/** The live inbox an inbox address delivers to (ingest, and the SMTP stand-in's RCPT check). */
export async function liveInbox(ctx: Pick<AppContext, 'stores' | 'now'>, address: string): Promise<InboxRoute | 'unknown-inbox' | 'expired-inbox'> {
  const inbox = await ctx.stores.inboxes.inboxForAddress(address);
  if (!inbox) return 'unknown-inbox';
  if (isExpired(inbox.expires_at_epoch, ctx.now())) return 'expired-inbox';
  return inbox;
}

export async function ingestMessage(ctx: AppContext, mail: InboundMail): Promise<RecipientOutcome[]> {
  const outcomes: RecipientOutcome[] = [];
  const targets: { recipient: string; inbox: InboxRoute }[] = [];
  const routed = inboxAddresses(mail.recipients, ctx.settings.domains);
  for (const recipient of mail.recipients) {
    if (!inboxAddressFor(recipient, ctx.settings.domains)) outcomes.push({ recipient, outcome: 'not-our-domain' });
  }
  const rawKey = blobKeys.inbound(mail.mailId);
  // The raw mail is read while the recipients are routed: one round trip less before the message is visible.
  const rawRead = routed.size > 0 ? ctx.stores.blobs.get(rawKey) : Promise.resolve(null);
  rawRead.catch(() => undefined); // awaited below, or moot when no recipient routes
  const routes = await Promise.all([...routed].map(async ([address, recipient]) => ({ recipient, inbox: await liveInbox(ctx, address) })));
  for (const { recipient, inbox } of routes) {
    if (typeof inbox === 'string') outcomes.push({ recipient, outcome: inbox });
    else targets.push({ recipient, inbox });
  }
  if (targets.length === 0) return outcomes;

  const raw = await rawRead;
  // SES's S3 action runs before this one, so a missing object is a fault to retry (and, in the end, to replay from
  // the dead-letter queue), never a reason to drop mail that was accepted.
  if (!raw) throw new Error(`raw message ${rawKey} not found`);
  const parsed = await parseMail(raw, { envelopeFrom: mail.envelopeFrom });
  const codes = extractCodes(parsed.subject, parsed.text);
  const links = extractLinks(parsed.html, parsed.text);

  for (const { recipient, inbox } of targets) {
    const messageId = messageIdFrom(`${mail.mailId}\n${inbox.id}`, mail.receivedAtMs);
    const record = await storeBlobs(ctx, inbox, messageId, rawKey, parsed, raw.length, mail, { codes, links });
    const plan = ctx.settings.plans[inbox.plan];
    const result = await ctx.stores.inboxes.putMessage(record, inbox, utcDay(mail.receivedAtMs), plan.emails_per_day);
    if (result === 'quota' || result === 'gone') {
      await ctx.stores.blobs.deletePrefix(blobKeys.message(inbox.id, messageId));
      outcomes.push({ recipient, outcome: result === 'quota' ? 'quota' : 'expired-inbox' });
    } else {
      outcomes.push({ recipient, outcome: result, messageId });
    }
  }
  return outcomes;
}

/** Writes the message's objects (raw copy, attachments, large bodies) and returns the item to store. */
async function storeBlobs(
  ctx: AppContext,
  inbox: InboxRoute,
  messageId: string,
  rawKey: string,
  parsed: ParsedMail,
  size: number,
  mail: InboundMail,
  found: { codes: string[]; links: string[] },
): Promise<MessageRecord> {
  const { blobs } = ctx.stores;
  const raw = blobKeys.raw(inbox.id, messageId);
  const copied = blobs.copy(rawKey, raw);
  const attachments: AttachmentRecord[] = await Promise.all(
    parsed.attachments.map(async (a, i) => {
      const id = `att_${i + 1}`;
      const key = blobKeys.attachment(inbox.id, messageId, id);
      await blobs.put(key, a.content, a.content_type);
      return { id, filename: a.filename, content_type: a.content_type, size: a.size, content_id: a.content_id, key };
    }),
  );
  const inline = Buffer.byteLength(parsed.text) + Buffer.byteLength(parsed.html) <= INLINE_BODY_BYTES;
  let bodyKey: string | undefined;
  if (!inline) {
    bodyKey = blobKeys.body(inbox.id, messageId);
    await blobs.put(bodyKey, JSON.stringify({ text: parsed.text, html: parsed.html }), 'application/json');
  }
  await copied;
  return {
    id: messageId,
    inbox_id: inbox.id,
    from: parsed.from || mail.envelopeFrom,
    from_name: parsed.from_name,
    to: inbox.email,
    subject: parsed.subject,
    received_at: new Date(mail.receivedAtMs).toISOString(),
    size,
    ...(inline ? { text: parsed.text, html: parsed.html } : { body_key: bodyKey }),
    attachments,
    codes: found.codes,
    links: found.links,
    auth: mail.verdicts,
    raw_key: raw,
  };
}
