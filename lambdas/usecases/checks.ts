/**
 * GET …/messages/{id}/checks: is the mail under test any good (issue 25). Computed on demand from what the message
 * stored (its headers and bodies) and its raw mail (read through the blob store port), each section bounded in time
 * and size and answering with what it found and why it stopped rather than failing the request: the only errors are
 * the message's own (404, 403 of another account's inbox).
 */
import { authenticationSection } from '../core/checks/authentication';
import { htmlSection } from '../core/checks/html';
import { complete, partial, skipped, type Section } from '../core/checks/model';
import { senderSection } from '../core/checks/sender';
import type { Caller, MessageRecord } from '../core/model';
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
/** A raw mail past this is not read for the authentication section (its memory is bounded): 10 MB. */
export const MAX_CHECKED_RAW_BYTES = 10 * 1024 * 1024;

export interface MessageChecks {
  message_id: string;
  checked_at: string;
  sections: { sender: Section; authentication: Section; html: Section; accessibility: Section };
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

async function htmlSections(ctx: ChecksContext, html: string, deadline: number): Promise<{ html: Section; accessibility: Section }> {
  if (!html) {
    const none = 'the message has no HTML body';
    return { html: skipped(none), accessibility: skipped(none) };
  }
  const found = await ctx.checks.html.inspect(html, Math.min(deadline, ctx.now() + HTML_BUDGET_MS));
  return {
    html: htmlSection(found.features, found.featuresCutShort),
    accessibility: found.cutShort ? partial(found.accessibility, found.cutShort) : complete(found.accessibility),
  };
}

export async function messageChecks(ctx: ChecksContext, caller: Caller, inboxId: string, messageId: string): Promise<MessageChecks> {
  const message = await ownedMessage(ctx, caller, inboxId, messageId);
  const deadline = ctx.now() + CHECKS_BUDGET_MS;
  const detail = await storedDetail(ctx, message);
  const sender = senderSection({ headers: detail.headers, headersTruncated: detail.headers_truncated, from: message.from, htmlBytes: Buffer.byteLength(detail.html) });
  const [auth, html] = await Promise.all([
    authentication(ctx, message, deadline).catch((error: Error) => skipped(`the raw mail could not be read: ${error.message}`.slice(0, 500))),
    htmlSections(ctx, detail.html, deadline),
  ]);
  return { message_id: message.id, checked_at: new Date(ctx.now()).toISOString(), sections: { sender, authentication: auth, ...html } };
}
