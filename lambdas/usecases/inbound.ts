/**
 * The local form's inbound queue, standing in for SES's S3 action: a mail accepted over SMTP is written to
 * `inbound/<mail id>` with its SMTP envelope in the object's metadata before the 250, and it stays there until
 * ingest has stored it, so a crash or restart never loses a mail that got a 250. Envelopes too large for S3's 2 KB
 * of user metadata (many recipients) go to a spool object beside the mail.
 */
import { randomBytes } from 'node:crypto';
import { DISABLED_VERDICTS } from '../core/model';
import { blobKeys } from '../core/ports';
import type { AppContext, IngestContext } from './context';
import { deliverMessage, type RecipientOutcome } from './ingest';

export interface Envelope {
  mailId: string;
  recipients: string[];
  envelopeFrom: string;
  receivedAt: string;
}

const { spool: spoolKey, SPOOL_PREFIX } = blobKeys;
const ENVELOPE_META = 'tempmail-envelope';
const MAX_META_BYTES = 1_800;

/** The inbound object's metadata: the envelope itself, or a pointer to its spool object. */
export function envelopeMetadata(envelope: Envelope): { metadata: Record<string, string>; spooled: boolean } {
  const encoded = Buffer.from(JSON.stringify(envelope)).toString('base64url');
  return encoded.length <= MAX_META_BYTES ? { metadata: { [ENVELOPE_META]: encoded }, spooled: false } : { metadata: { [ENVELOPE_META]: 'spool' }, spooled: true };
}

/** This process's part of its mail ids: random, drawn once; a counter tells its mails apart. */
const processPart = randomBytes(6).toString('hex');
let mailCounter = 0;

/** SES-like ids: time-ordered, unique (a random part per process and a counter: no random draw per mail). */
export const newMailId = (nowMs: number) => `${nowMs.toString(36)}${processPart}${(mailCounter++ % 0x100000000).toString(16).padStart(8, '0')}`;

/** Stores the raw mail and its envelope durably; the SMTP 250 may follow. */
export async function acceptInbound(ctx: AppContext, envelope: Envelope, raw: Buffer): Promise<void> {
  const { blobs } = ctx.stores;
  const { metadata, spooled } = envelopeMetadata(envelope);
  if (spooled) await blobs.put(spoolKey(envelope.mailId), JSON.stringify(envelope), 'application/json');
  await blobs.put(blobKeys.inbound(envelope.mailId), raw, 'message/rfc822', metadata);
}

/**
 * Runs ingest on an accepted mail: stored in every inbox it names (again: a duplicate, not a second copy). Throws on
 * a transient fault: the caller retries. `finishInbound` then removes it from the queue.
 */
export async function ingestInbound(ctx: IngestContext, envelope: Envelope, raw?: Buffer, held?: { segment: number; offset: number }): Promise<RecipientOutcome[]> {
  return deliverMessage(ctx, {
    raw,
    rawHeld: held,
    mailId: envelope.mailId,
    recipients: envelope.recipients,
    envelopeFrom: envelope.envelopeFrom,
    receivedAtMs: Date.parse(envelope.receivedAt),
    verdicts: DISABLED_VERDICTS,
  });
}

/** Resolves once every write ingest made before the call survives a power loss (then its spool record may go). */
export async function settleInbound(ctx: AppContext): Promise<void> {
  await ctx.stores.sync?.();
}

/**
 * The embedded form's spool has stored every mail of a segment and renamed it as handed over: the store removes it
 * once no message keeps its raw mail there.
 */
export async function spoolSegmentStored(ctx: AppContext, segment: number): Promise<void> {
  await ctx.stores.releaseSpoolSegment?.(segment);
}

/**
 * The embedded form's spool numbers each new segment past this (and past every segment file it finds): the highest
 * segment a stored object names, so that no object can ever name a new segment's bytes, even one whose segment a
 * power loss left deleted while its row survived, and whatever the clock does.
 */
export async function spoolSegmentFloor(ctx: AppContext): Promise<number> {
  return (await ctx.stores.highestSpoolSegment?.()) ?? 0;
}

/** After ingest: the inbound object (first: once it is gone the mail is never ingested again), then its spool. */
export async function finishInbound(ctx: AppContext, envelope: Envelope): Promise<void> {
  await ctx.stores.blobs.delete(blobKeys.inbound(envelope.mailId));
  if (envelopeMetadata(envelope).spooled) await ctx.stores.blobs.delete(spoolKey(envelope.mailId));
}

export type PendingInbound = { envelope: Envelope } | { unreadable: string };

/**
 * Mail accepted but not yet stored (after a restart: every inbound object still there), oldest first. `skip` names
 * mail this process is already working on. Spool objects whose mail was stored are removed on the way.
 */
export async function pendingInbound(ctx: AppContext, skip: (mailId: string) => boolean): Promise<PendingInbound[]> {
  const { blobs } = ctx.stores;
  const found: PendingInbound[] = [];
  for (const key of await blobs.list(blobKeys.INBOUND_PREFIX)) {
    const mailId = key.slice(blobKeys.INBOUND_PREFIX.length);
    if (skip(mailId)) continue;
    const metadata = await blobs.head(key);
    if (!metadata) continue; // ingested meanwhile
    const pointer = metadata[ENVELOPE_META];
    try {
      if (pointer && pointer !== 'spool') {
        found.push({ envelope: JSON.parse(Buffer.from(pointer, 'base64url').toString('utf8')) as Envelope });
        continue;
      }
      const spool = await blobs.get(spoolKey(mailId));
      if (spool) found.push({ envelope: JSON.parse(spool.toString('utf8')) as Envelope });
      else if (!pointer) await blobs.delete(key); // left by a version that deleted the spool object first: ingested
      else found.push({ unreadable: `${key} points to a spool object that is missing` });
    } catch (error) {
      found.push({ unreadable: `${key}: unreadable envelope (${(error as Error).message})` });
    }
  }
  for (const key of await blobs.list(SPOOL_PREFIX)) {
    const mailId = key.slice(SPOOL_PREFIX.length, -'.json'.length);
    if (!skip(mailId) && !(await blobs.head(blobKeys.inbound(mailId)))) await blobs.delete(key);
  }
  return found;
}
