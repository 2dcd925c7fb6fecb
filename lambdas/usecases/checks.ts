/**
 * GET …/messages/{id}/checks: is the mail under test any good (issue 25). Computed on demand from what the message
 * stored (its headers and bodies) and its raw mail (read through the blob store port), each section bounded in time
 * and size and answering with what it found and why it stopped rather than failing the request: the only errors are
 * the message's own (404, 403 of another account's inbox).
 */
import { authenticationSection } from '../core/checks/authentication';
import { htmlSection } from '../core/checks/html';
import { linksSection, linkTargets } from '../core/checks/links';
import { complete, partial, skipped, type Section } from '../core/checks/model';
import { senderSection } from '../core/checks/sender';
import type { Caller, MessageDetail, MessageRecord } from '../core/model';
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

type BodySections = { html: Section; accessibility: Section; links: Section };

/** The sections read from the bodies: the HTML pass, then (when asked) the links it and the text hold. */
async function bodySections(ctx: ChecksContext, detail: MessageDetail, options: CheckOptions, deadline: number): Promise<BodySections> {
  let images: string[] = [];
  let sections: Omit<BodySections, 'links'>;
  if (!detail.html) {
    const none = 'the message has no HTML body';
    sections = { html: skipped(none), accessibility: skipped(none) };
  } else {
    const found = await ctx.checks.html.inspect(detail.html, Math.min(deadline, ctx.now() + HTML_BUDGET_MS));
    images = found.images;
    sections = {
      html: htmlSection(found.features, found.featuresCutShort),
      accessibility: found.cutShort ? partial(found.accessibility, found.cutShort) : complete(found.accessibility),
    };
  }
  if (!options.links) return { ...sections, links: linksSection(null, 0) };
  // The links ingest extracted (HTML hrefs, then the text's), and the image sources of the HTML pass.
  const { targets, total } = linkTargets(detail.links, images);
  const report = await ctx.checks.links.probe(targets, Math.min(deadline, ctx.now() + LINKS_BUDGET_MS));
  return { ...sections, links: linksSection(report, total) };
}

export interface CheckOptions {
  /** Ask each link and image source (`?links=true`). */
  links: boolean;
}

export async function messageChecks(ctx: ChecksContext, caller: Caller, inboxId: string, messageId: string, options: CheckOptions = { links: false }): Promise<MessageChecks> {
  const message = await ownedMessage(ctx, caller, inboxId, messageId);
  const deadline = ctx.now() + CHECKS_BUDGET_MS;
  const detail = await storedDetail(ctx, message);
  const sender = senderSection({ headers: detail.headers, headersTruncated: detail.headers_truncated, from: message.from, htmlBytes: Buffer.byteLength(detail.html) });
  const [auth, bodies] = await Promise.all([
    authentication(ctx, message, deadline).catch((error: Error) => skipped(`the raw mail could not be read: ${error.message}`.slice(0, 500))),
    bodySections(ctx, detail, options, deadline),
  ]);
  return { message_id: message.id, checked_at: new Date(ctx.now()).toISOString(), sections: { sender, authentication: auth, ...bodies } };
}
