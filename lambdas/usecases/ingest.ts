/**
 * Receiving mail, shared by the SES handler (AWS) and the SMTP stand-in (local):
 * - admitRecipient: may mail to this address be accepted now (the SMTP stand-in's RCPT check);
 * - ingestMessage: one received mail → one stored message per live inbox it was addressed to. Idempotent: the
 *   message id derives from the mail's id and the inbox, and the store refuses a second copy. Every mail that got
 *   a 250 becomes a readable message: a failure that would recur on every retry (a mail that cannot be parsed or
 *   stored in full) stores a degraded message instead (headers, the body as text, the raw mail, `parse_error`);
 *   only transient faults throw, to be retried (by the SMTP stand-in; on AWS by Lambda, then the dead-letter queue).
 *   A message's objects and item are made in message-objects.ts.
 */
import { inboxAddressFor, isOurDomain, reservedUsername } from '../core/address';
import { ApiError, isTransient } from '../core/errors';
import { messageIdFrom } from '../core/ids';
import { epochSeconds, isExpired, receivedBeforeInbox, utcDay } from '../core/inbox';
import { QuotaReservations } from './quota-reservations';
import { storedBytesBound } from '../core/limits';
import type { Caller, InboxRoute } from '../core/model';
import { blobKeys, type ParsedMail } from '../core/ports';
import type { AppContext, IngestContext } from './context';
import { createInbox } from './inboxes';
import { storeBlobs, type InboundMail } from './message-objects';

export type { InboundMail } from './message-objects';

export type DropReason = 'not-our-domain' | 'unknown-inbox' | 'expired-inbox' | 'quota' | 'storage';
export type RecipientOutcome = {
  recipient: string;
  outcome: 'stored' | 'duplicate' | DropReason;
  messageId?: string;
  /** Why the message was stored in its degraded form (callers log it). */
  degraded?: string;
};

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

/** `inbox-limit`: catch-all would create the recipient's inbox, but its account holds its plan's most live inboxes. */
/** `reserved`: catch-all met a reserved name (postmaster, no-reply, …), which it never makes; a public list, so naming it leaks nothing. */
export type Admission = 'ok' | 'not-our-domain' | 'unknown-inbox' | 'expired-inbox' | 'quota' | 'storage' | 'inbox-limit' | 'reserved';

/** Where QuotaReservations counts bytes held for an account's storage quota (their "day": the quota has none). */
const storageUnit = (accountId: string) => `bytes:${accountId}`;
const STORAGE_SPAN = 'all';

/** Held between the SMTP stand-in's 250 and the message's store (their own file; callers import them from here). */
export { QuotaReservations };

async function liveInboxesByAccount(ctx: AppContext, recipients: string[]): Promise<Map<string, InboxRoute[]>> {
  const routes = await Promise.all([...inboxAddresses(recipients, ctx.settings.domains).keys()].map((address) => liveInbox(ctx, address)));
  const byAccount = new Map<string, InboxRoute[]>();
  for (const inbox of routes) if (typeof inbox !== 'string') byAccount.set(inbox.account_id, [...(byAccount.get(inbox.account_id) ?? []), inbox]);
  return byAccount;
}

/** Counts mail accepted before a restart (past its 250 already, so without a check) until it is stored. */
export async function reserveAccepted(ctx: AppContext, recipients: string[], reservations: QuotaReservations): Promise<{ release(): void }> {
  const byAccount = await liveInboxesByAccount(ctx, recipients);
  const units = [...byAccount].flatMap(([account, inboxes]) => [[account, inboxes.length], ...inboxes.map((i) => [inboxUnit(i), 1])] as [string, number][]);
  return reservations.add(new Map(units), utcDay(ctx.now()));
}

/** Where QuotaReservations counts an inbox's own day, beside its account's (plans with `emails_per_inbox_per_day`). */
const inboxUnit = (inbox: InboxRoute) => `inbox:${inbox.id}`;

/**
 * Messages an inbox received on the UTC day of `nowMs`, `except` one (a retried ingest's own message), counted up to
 * `atMost`: newest first, so it stops at the first older message, and it reads at most about `atMost` summaries.
 */
async function inboxDayCount(ctx: AppContext, inboxId: string, nowMs: number, atMost: number, except?: string): Promise<number> {
  const day = utcDay(nowMs);
  let count = 0;
  let after: string | undefined;
  do {
    const page = await ctx.stores.inboxes.listMessages(inboxId, 100, after);
    for (const m of page.items) {
      if (m.received_at.slice(0, 10) < day) return count;
      if (m.id !== except && ++count >= atMost) return count;
    }
    after = page.last;
  } while (after);
  return count;
}

/** Whether each inbox has room for one more mail today under its plan's `emails_per_inbox_per_day` (unset: yes). */
async function inboxesUnderCap(ctx: AppContext, inboxes: InboxRoute[], reservations: QuotaReservations, except?: string): Promise<boolean> {
  const day = utcDay(ctx.now());
  for (const inbox of inboxes) {
    const cap = ctx.settings.plans[inbox.plan].emails_per_inbox_per_day;
    if (cap === undefined) continue;
    if ((await inboxDayCount(ctx, inbox.id, ctx.now(), cap, except)) + reservations.count(inboxUnit(inbox), day) + 1 > cap) return false;
  }
  return true;
}

async function underLimit(ctx: AppContext, inbox: InboxRoute, units: number, reservations: QuotaReservations): Promise<boolean> {
  const day = utcDay(ctx.now());
  const limit = ctx.settings.plans[inbox.plan].emails_per_day;
  const used = await ctx.stores.inboxes.usage(inbox.account_id, day);
  return used + reservations.count(inbox.account_id, day) + units <= limit;
}

/** Whether the account has room for `bytes` more under its plan's storage_bytes (mail accepted, not stored yet, too). */
async function underStorage(ctx: AppContext, inbox: InboxRoute, bytes: number, reservations: QuotaReservations): Promise<boolean> {
  const used = await ctx.stores.inboxes.storageUsed(inbox.account_id);
  const held = reservations.count(storageUnit(inbox.account_id), STORAGE_SPAN);
  // At RCPT (`bytes` 0) the size is unknown: refused only once the quota is full.
  return bytes === 0 ? used + held < ctx.settings.plans[inbox.plan].storage_bytes : used + held + bytes <= ctx.settings.plans[inbox.plan].storage_bytes;
}

/**
 * Whether mail for `recipient` can be accepted now: our domain, a live inbox, and room under the inbox's account's
 * daily limit and storage quota (the SMTP stand-in's RCPT check; the limits are enforced exactly by `admitMail`).
 */
export async function admitRecipient(
  ctx: AppContext,
  recipient: string,
  reservations = new QuotaReservations(),
  options: { catchAllFor?: Caller } = {},
): Promise<Admission> {
  if (!isOurDomain(recipient, ctx.settings.domains)) return 'not-our-domain';
  const address = inboxAddressFor(recipient, ctx.settings.domains);
  if (!address) return 'unknown-inbox';
  const found = await liveInbox(ctx, address);
  const inbox = typeof found === 'string' && options.catchAllFor ? await catchAllInbox(ctx, options.catchAllFor, address) : found;
  if (typeof inbox === 'string') return inbox;
  const room = async (): Promise<Admission> => {
    if (!((await underLimit(ctx, inbox, 1, reservations)) && (await inboxesUnderCap(ctx, [inbox], reservations)))) return 'quota';
    return (await underStorage(ctx, inbox, 0, reservations)) ? 'ok' : 'storage';
  };
  return reservations.recheckedAfterStoring(room);
}

/**
 * Catch-all (the local form's TEMPMAIL_CATCH_ALL, as Mailpit catches everything): the inbox of an address of our
 * domains that has none is created for `caller` when mail for it arrives, with the default TTL, through the same use
 * case as POST /v1/inboxes, so that its rules hold: a reserved name stays refused (`reserved`: its own reply, as the list is public),
 * and an account at its plan's inbox limit gets `inbox-limit`. Two sessions racing for one new address both end up
 * delivering to the one inbox that won.
 */
async function catchAllInbox(ctx: AppContext, caller: Caller, address: string): Promise<InboxRoute | 'unknown-inbox' | 'expired-inbox' | 'inbox-limit' | 'reserved'> {
  const at = address.lastIndexOf('@');
  const username = address.slice(0, at);
  if (reservedUsername(username)) return 'reserved';
  try {
    const created = await createInbox(ctx, caller, { domain: address.slice(at + 1), username });
    return { id: created.id, email: created.email, account_id: created.account_id, plan: created.plan, expires_at_epoch: created.expires_at_epoch, created_at: created.created_at };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 409) throw error;
    // Taken meanwhile (another session's catch-all, or a POST): deliver to that inbox; else the account is full.
    const now = await liveInbox(ctx, address);
    return typeof now === 'string' ? 'inbox-limit' : now;
  }
}

/**
 * At the end of DATA: reserves one unit of each target inbox's account's daily limit and the most the mail can take
 * of its storage quota (storedBytesBound per inbox), or none when any account has no room left (`quota`, `storage`:
 * the whole mail then gets 452, and the sender may retry later or with fewer recipients; `too-large`: the mail alone
 * is more than an account's whole quota, 552), or when no recipient has a live inbox any more (`no-inbox`: each was
 * deleted or expired after its RCPT, and a 250 would promise a message nobody can read).
 */
export async function admitMail(
  ctx: AppContext,
  recipients: string[],
  reservations: QuotaReservations,
  rawBytes = 0,
): Promise<{ release(): void } | 'quota' | 'storage' | 'too-large' | 'no-inbox'> {
  const byAccount = await liveInboxesByAccount(ctx, recipients);
  if (byAccount.size === 0) return 'no-inbox';
  const bound = storedBytesBound(rawBytes);
  for (const inboxes of byAccount.values()) if (bound > ctx.settings.plans[inboxes[0].plan].storage_bytes) return 'too-large';
  const taken: { release(): void }[] = [];
  const day = utcDay(ctx.now());
  for (const [account, inboxes] of byAccount) {
    const reserved = await reservations.locked(account, async () => {
      const room = async () => {
        if (!((await underLimit(ctx, inboxes[0], inboxes.length, reservations)) && (await inboxesUnderCap(ctx, inboxes, reservations)))) return 'quota' as const;
        return (await underStorage(ctx, inboxes[0], bound * inboxes.length, reservations)) ? ('ok' as const) : ('storage' as const);
      };
      const verdict = await reservations.recheckedAfterStoring(room);
      if (verdict !== 'ok') return verdict;
      const units = reservations.add(new Map([[account, inboxes.length], ...inboxes.map((i) => [inboxUnit(i), 1] as [string, number])]), day);
      const bytes = reservations.add(new Map([[storageUnit(account), bound * inboxes.length]]), STORAGE_SPAN);
      return { release: () => (units.release(), bytes.release()) };
    });
    if (typeof reserved === 'string') {
      for (const t of taken) t.release();
      return reserved;
    }
    taken.push(reserved);
  }
  return { release: () => taken.forEach((t) => t.release()) };
}

/**
 * Stores the mail for each live inbox it names, then deletes the inbound object: the mail is in every inbox it
 * goes to (or dropped for a reason that will not change), and nothing else needs the copy SES or the SMTP stand-in
 * wrote. A transient fault throws before that, so a retry (Lambda's, the stand-in's) finds the object still there.
 */
export async function ingestMessage(ctx: IngestContext, mail: InboundMail): Promise<RecipientOutcome[]> {
  const outcomes = await deliverMessage(ctx, mail);
  await ctx.stores.blobs.delete(blobKeys.inbound(mail.mailId));
  return outcomes;
}

/** Stores the mail for each live inbox it names, leaving the inbound object to the caller (the local queue). */
export async function deliverMessage(ctx: IngestContext, mail: InboundMail): Promise<RecipientOutcome[]> {
  const outcomes: RecipientOutcome[] = [];
  const targets: { recipient: string; inbox: InboxRoute }[] = [];
  const routed = inboxAddresses(mail.recipients, ctx.settings.domains);
  for (const recipient of mail.recipients) {
    if (!inboxAddressFor(recipient, ctx.settings.domains)) outcomes.push({ recipient, outcome: 'not-our-domain' });
  }
  const rawKey = blobKeys.inbound(mail.mailId);
  // The raw mail is read while the recipients are routed: one round trip less before the message is visible.
  const rawRead = mail.raw ? Promise.resolve(mail.raw) : routed.size > 0 ? ctx.stores.blobs.get(rawKey) : Promise.resolve(null);
  rawRead.catch(() => undefined); // awaited below, or moot when no recipient routes
  const routes = await Promise.all([...routed].map(async ([address, recipient]) => ({ recipient, inbox: await liveInbox(ctx, address) })));
  for (const { recipient, inbox } of routes) {
    if (typeof inbox === 'string') outcomes.push({ recipient, outcome: inbox });
    // Its address's inbox when the mail was received is gone: never the mail of whoever claimed the address since.
    else if (receivedBeforeInbox(inbox, mail.receivedAtMs)) outcomes.push({ recipient, outcome: 'unknown-inbox' });
    else targets.push({ recipient, inbox });
  }
  if (targets.length === 0) return outcomes;

  const raw = await rawRead;
  if (!raw) {
    // Ingest deletes the inbound object once the mail is stored everywhere, so an event delivered again after that
    // finds it gone: every message is there already. Otherwise SES's S3 action runs before this one, and a missing
    // object is a fault to retry (in the end, to replay from the dead-letter queue), never a reason to drop mail.
    const ids = targets.map(({ inbox }) => messageIdFrom(`${mail.mailId}\n${inbox.id}`, mail.receivedAtMs));
    const stored = await Promise.all(targets.map(({ inbox }, i) => ctx.stores.inboxes.getMessage(inbox.id, ids[i])));
    if (stored.every(Boolean)) return [...outcomes, ...targets.map(({ recipient }, i) => ({ recipient, outcome: 'duplicate' as const, messageId: ids[i] }))];
    throw new Error(`raw message ${rawKey} not found`);
  }
  const parsed = await ctx.mail.parse(raw, { envelopeFrom: mail.envelopeFrom });

  // The attachments, once stored for one inbox: copied from there for the next (S3 copies server-side) instead of
  // uploaded again. Each inbox still has copies of its own under its prefix, so deleting an inbox or a message
  // deletes its prefix and nothing another inbox holds.
  let attachmentSources: string[] | undefined;
  for (const { recipient, inbox } of targets) {
    const messageId = messageIdFrom(`${mail.mailId}\n${inbox.id}`, mail.receivedAtMs);
    // The plan's per-inbox day cap, when it sets one: on AWS the only check (SES answers 250 before anything runs);
    // locally RCPT and the end of DATA checked it already. Counted by reading, so ingests racing may pass it by a few.
    if (!(await inboxesUnderCap(ctx, [inbox], new QuotaReservations(), messageId))) {
      outcomes.push({ recipient, outcome: 'quota' });
      continue;
    }
    let degraded: string | undefined;
    let stored: Awaited<ReturnType<typeof storeMessage>>;
    try {
      stored = await storeMessage(ctx, inbox, recipient, messageId, rawKey, parsed, raw.length, mail, attachmentSources);
    } catch (error) {
      if (isTransient(error)) throw error;
      // It would fail the same way on every retry: store what surely fits, from the raw headers.
      degraded = `the message could not be stored in full (${(error as Error).message}); shown as plain text, the raw mail is complete`;
      await ctx.stores.blobs.deletePrefix(blobKeys.message(inbox.id, messageId));
      stored = await storeMessage(ctx, inbox, recipient, messageId, rawKey, ctx.mail.minimal(raw, { envelopeFrom: mail.envelopeFrom }, degraded), raw.length, mail);
    }
    const { result, record, attachmentKeys } = stored;
    if (result === 'quota' || result === 'storage' || result === 'gone') {
      await ctx.stores.blobs.deletePrefix(blobKeys.message(inbox.id, messageId));
      outcomes.push({ recipient, outcome: result === 'gone' ? 'expired-inbox' : result });
    } else {
      // Only a stored message's copies are sources: a message refused (quota, gone) has had its prefix deleted.
      if (!degraded && !attachmentSources) attachmentSources = attachmentKeys;
      // Webhooks, in the local form (on AWS the table's stream reports the insert). A duplicate is reported again:
      // the first report may have been cut off by the crash that made this a retry; its event id is the same.
      await ctx.events?.messageStored(record, inbox);
      outcomes.push({ recipient, outcome: result, messageId, ...(degraded || parsed.parse_error ? { degraded: degraded ?? parsed.parse_error! } : {}) });
    }
  }
  return outcomes;
}

/** Writes the message's objects, then its item (with the inbox's count and the day's usage). */
async function storeMessage(ctx: AppContext, inbox: InboxRoute, recipient: string, messageId: string, rawKey: string, parsed: ParsedMail, size: number, mail: InboundMail, attachmentSources?: string[]) {
  const { record, attachmentKeys } = await storeBlobs(ctx, inbox, recipient, messageId, rawKey, parsed, size, mail, attachmentSources);
  const plan = ctx.settings.plans[inbox.plan];
  // Live or not by this use case's clock (the store states the rule as its condition); counted on the day received.
  const rules = { nowEpoch: epochSeconds(ctx.now()), day: utcDay(mail.receivedAtMs), dailyLimit: plan.emails_per_day, storageLimit: plan.storage_bytes };
  const result = await ctx.stores.inboxes.putMessage(record, inbox, rules);
  return { result, record, attachmentKeys };
}
