/**
 * GET …/messages/{id}/checks: is the mail under test any good (issue 25). Computed on demand from what the message
 * stored (its headers and bodies) and its raw mail (read through the blob store port). Sender, html and accessibility,
 * which depend on nothing else, are cached with the message (checks-cache.ts); authentication (DNS) and links (the
 * network) are computed on every request. Each section is bounded in time and size and answers with what it found and
 * why it stopped rather than failing the request: the only errors are the message's own (404, 403 of another
 * account's inbox).
 */
import { authenticationSection } from '../core/checks/authentication';
import { htmlSection } from '../core/checks/html';
import { linksSection, linkTargets } from '../core/checks/links';
import { complete, partial, skipped, type Section } from '../core/checks/model';
import { senderSection } from '../core/checks/sender';
import type { Caller, MessageDetail, MessageRecord } from '../core/model';
import { readCachedChecks, writeCachedChecks, type DeterministicChecks } from './checks-cache';
import type { ChecksContext } from './context';
import { ownedMessage, storedDetail } from './messages';

/**
 * The longest the whole check may take, inside the route's function timeout (MAX_ROUTE_TIMEOUT_SECONDS) with room
 * for the answer; each section has its own share of it.
 */
export const CHECKS_BUDGET_MS = 20_000;
/** The authentication section's share: DNS that does not answer by then is temperror. */
export const AUTHENTICATION_BUDGET_MS = 8_000;
/** The html and accessibility sections' share (one pass over the HTML reads for both). */
export const HTML_BUDGET_MS = 5_000;
/** The links section's share, after the HTML pass (which gives it the image sources). */
export const LINKS_BUDGET_MS = 12_000;
/** A raw mail past this is not read for the authentication section (its memory is bounded): 10 MB. */
export const MAX_CHECKED_RAW_BYTES = 10 * 1024 * 1024;

export interface MessageChecks {
  message_id: string;
  checked_at: string;
  sections: { sender: Section; authentication: Section; html: Section; accessibility: Section; links: Section };
}

async function authentication(ctx: ChecksContext, message: MessageRecord, deadline: number): Promise<Section> {
  if (message.size > MAX_CHECKED_RAW_BYTES) {
    return authenticationSection(null, `the raw mail is ${message.size} bytes, past the ${MAX_CHECKED_RAW_BYTES} bytes the check reads`, message.auth);
  }
  const raw = await ctx.stores.blobs.get(message.raw_key);
  if (!raw) return authenticationSection(null, 'the raw mail is no longer stored', message.auth);
  // Messages stored before the envelope was kept: the Return-Path the receiving side prepended names MAIL FROM.
  const sender = message.envelope?.from ?? '';
  const report = await ctx.checks.authenticator.authenticate(raw, sender, Math.min(deadline, ctx.now() + AUTHENTICATION_BUDGET_MS));
  return authenticationSection(report, null, message.auth);
}

/** The sections a stored message always answers the same, and the HTML's image sources, computed from its bodies. */
async function deterministic(ctx: ChecksContext, message: MessageRecord, detail: MessageDetail, deadline: number): Promise<{ checks: DeterministicChecks; cacheable: boolean }> {
  const sender = senderSection({ headers: detail.headers, headersTruncated: detail.headers_truncated, from: message.from, htmlBytes: Buffer.byteLength(detail.html) });
  if (!detail.html) {
    const none = 'the message has no HTML body';
    return { checks: { sections: { sender, html: skipped(none), accessibility: skipped(none) }, images: [] }, cacheable: true };
  }
  const htmlDeadline = Math.min(deadline, ctx.now() + HTML_BUDGET_MS);
  const found = await ctx.checks.html.inspect(detail.html, htmlDeadline);
  const html = htmlSection(found.features, found.featuresCutShort);
  const accessibility = found.cutShort ? partial(found.accessibility, found.cutShort) : complete(found.accessibility);
  // A pass the time budget cut short may read further another time (a less busy machine): not kept.
  return { checks: { sections: { sender, html, accessibility }, images: found.images }, cacheable: ctx.now() < htmlDeadline };
}

/** The cached sections (checks-cache.ts), else computed and cached; then (when asked) the links the bodies hold. */
async function bodySections(ctx: ChecksContext, inboxId: string, message: MessageRecord, options: CheckOptions, deadline: number): Promise<DeterministicChecks & { links: Section }> {
  let detail: MessageDetail | null = null;
  let fixed = await readCachedChecks(ctx, inboxId, message.id);
  if (!fixed) {
    detail = await storedDetail(ctx, message);
    const { checks, cacheable } = await deterministic(ctx, message, detail, deadline);
    if (cacheable) await writeCachedChecks(ctx, inboxId, message.id, checks);
    fixed = checks;
  }
  if (!options.links) return { ...fixed, links: linksSection(null, 0) };
  detail ??= await storedDetail(ctx, message);
  // The links ingest extracted (HTML hrefs, then the text's), and the image sources of the HTML pass.
  const { targets, total } = linkTargets(detail.links, fixed.images);
  const report = await ctx.checks.links.probe(targets, Math.min(deadline, ctx.now() + LINKS_BUDGET_MS));
  return { ...fixed, links: linksSection(report, total) };
}

export interface CheckOptions {
  /** Ask each link and image source (`?links=true`). */
  links: boolean;
}

export async function messageChecks(ctx: ChecksContext, caller: Caller, inboxId: string, messageId: string, options: CheckOptions = { links: false }): Promise<MessageChecks> {
  const message = await ownedMessage(ctx, caller, inboxId, messageId);
  const deadline = ctx.now() + CHECKS_BUDGET_MS;
  const [auth, bodies] = await Promise.all([
    authentication(ctx, message, deadline).catch((error: Error) => skipped(`the raw mail could not be read: ${error.message}`.slice(0, 500))),
    bodySections(ctx, inboxId, message, options, deadline),
  ]);
  const { sender, html, accessibility } = bodies.sections;
  return { message_id: message.id, checked_at: new Date(ctx.now()).toISOString(), sections: { sender, authentication: auth, html, accessibility, links: bodies.links } };
}
