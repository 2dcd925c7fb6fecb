/** Message use cases: list, read, raw, delete, wait. */
import { decodeCursor, encodeCursor } from '../core/cursor';
import { attachmentDownload, downloadRefusal, rawDownload } from '../core/downloads';
import { blobKeys } from '../core/ports';
import { forbidden, notFound } from '../core/errors';
import { MESSAGE_ID } from '../core/ids';
import { DEFAULT_PAGE_SIZE, DEFAULT_WAIT_SECONDS } from '../core/limits';
import { BODY_KEPT_CHARS, messageDetail } from '../core/message';
import type { Caller, MessageDetail, MessageRecord } from '../core/model';
import { matches, messageFilter, searchFields } from '../core/search';
import { snapshotOf } from '../core/snapshot';
import { summaryView, messageView, snapshotView } from '../contract/views';
import type { AppContext } from './context';
import { ownedInbox, withRoomToDelete } from './inboxes';

export interface ListMessagesQuery {
  limit?: number;
  cursor?: string;
  q?: string;
  from?: string;
  subject?: string;
}

export async function listMessages(ctx: AppContext, caller: Caller, inboxId: string, query: ListMessagesQuery) {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const filter = messageFilter(query);
  // Ownership first: no message of another account's inbox is read, so neither the answer nor its timing says
  // anything about what a search would have found. The count is read again after the page: a message and the count
  // it adds commit together, so a page read before the count can only hold messages the count includes.
  await ownedInbox(ctx, caller, inboxId);
  const page = await ctx.stores.inboxes.listMessages(inboxId, query.limit ?? DEFAULT_PAGE_SIZE, after, filter);
  const inbox = await ownedInbox(ctx, caller, inboxId);
  return {
    messages: page.items.map(summaryView),
    total: inbox.message_count,
    ...(page.matched ? { matched: page.matched.count, matched_exact: page.matched.exact } : {}),
    ...('last' in page && page.last ? { next_cursor: encodeCursor(page.last) } : {}),
  };
}

async function ownedInboxMessage(ctx: AppContext, caller: Caller, inboxId: string, messageId: string) {
  const inbox = await ownedInbox(ctx, caller, inboxId);
  const message = MESSAGE_ID.test(messageId) ? await ctx.stores.inboxes.getMessage(inbox.id, messageId) : null;
  if (!message) throw notFound(`message not found: ${messageId}`);
  return { inbox, message };
}

export const ownedMessage = async (ctx: AppContext, caller: Caller, inboxId: string, messageId: string): Promise<MessageRecord> =>
  (await ownedInboxMessage(ctx, caller, inboxId, messageId)).message;

/**
 * The message's detail: from its item, and its body object when it has one, its bodies cut to BODY_KEPT_CHARS (what
 * ingest keeps of them; older messages kept them whole, and a read never holds or parses more).
 */
export async function storedDetail(ctx: AppContext, message: MessageRecord): Promise<MessageDetail> {
  const stored = message.body_key ? await ctx.stores.blobs.getJson(message.body_key, BODY_KEPT_CHARS) : null;
  const detail = messageDetail(message, stored ? (stored.value as Partial<MessageDetail>) : null);
  // Only a body cut says so (a 2 M-character subject is cut too, and served whole within its own share).
  return stored && (stored.cut.includes('text') || stored.cut.includes('html')) ? { ...detail, bodies_cut: true } : detail;
}

export async function fullMessage(ctx: AppContext, message: MessageRecord) {
  const detail = await storedDetail(ctx, message);
  const refused = downloadRefusal(message) !== null;
  const urls = await Promise.all(
    detail.attachments.map((a) => (refused ? null : ctx.stores.blobs.presignGet(a.key, ctx.settings.downloadUrlSeconds, attachmentDownload(a)))),
  );
  return messageView(message, detail, urls);
}

export async function getMessage(ctx: AppContext, caller: Caller, inboxId: string, messageId: string) {
  return fullMessage(ctx, await ownedMessage(ctx, caller, inboxId, messageId));
}

/** The message normalised for snapshot tests (core/snapshot.ts has the rules). */
export async function getMessageSnapshot(ctx: AppContext, caller: Caller, inboxId: string, messageId: string) {
  const { inbox, message } = await ownedInboxMessage(ctx, caller, inboxId, messageId);
  const detail = await storedDetail(ctx, message);
  const snapshot = snapshotOf({
    subject: detail.full_subject ?? message.subject,
    text: detail.text,
    html: detail.html,
    inboxEmail: inbox.email,
    messageIds: [detail.message_id, detail.in_reply_to].filter((id): id is string => id !== null),
    boundaries: detail.headers.filter((h) => /^content-type$/i.test(h.name)).flatMap((h) => /boundary="?([^";\s]+)/i.exec(h.value)?.[1] ?? []),
  });
  return snapshotView(message.id, snapshot, detail.bodies_cut === true);
}

/**
 * A pre-signed URL of the raw mail, never the bytes: a REST API without binary media types would send them as
 * base64 text, and Lambda answers at most 6 MB while SES accepts 40 MB. The object is looked up first, so a missing
 * one is still 404 and an unreachable S3 still 503.
 */
export async function getRawMessage(ctx: AppContext, caller: Caller, inboxId: string, messageId: string): Promise<string> {
  const message = await ownedMessage(ctx, caller, inboxId, messageId);
  const refusal = downloadRefusal(message);
  if (refusal) throw forbidden(refusal);
  if (!(await ctx.stores.blobs.head(message.raw_key))) throw notFound(`raw form of message ${messageId} is no longer stored`);
  return ctx.stores.blobs.presignGet(message.raw_key, ctx.settings.downloadUrlSeconds, rawDownload(message.id));
}

export async function deleteMessage(ctx: AppContext, caller: Caller, inboxId: string, messageId: string): Promise<void> {
  const message = await ownedMessage(ctx, caller, inboxId, messageId);
  if (!(await withRoomToDelete(ctx, blobKeys.message(inboxId, message.id), () => ctx.stores.inboxes.deleteMessage(inboxId, message.id)))) {
    throw notFound(`message not found: ${messageId}`);
  }
  await ctx.stores.blobs.deletePrefix(blobKeys.message(inboxId, message.id));
}

/** Messages deleted at once while an inbox is emptied: each is one transaction (item and count) and its objects. */
const EMPTY_BATCH = 25;

/**
 * DELETE …/messages: the inbox stays (address, lifetime, webhooks), its messages go, each as deleteMessage removes
 * one (the item and the inbox's count together, then its objects), a batch at a time for at most `deleteBudgetMs`,
 * as a DELETE of the inbox does. Out of time, the answer says so (`finished: false`) and a repeat goes on. Mail that
 * arrives meanwhile may go too: it is in the inbox when a batch is listed.
 */
export async function emptyInbox(ctx: AppContext, caller: Caller, inboxId: string): Promise<{ deleted_count: number; finished: boolean }> {
  const inbox = await ownedInbox(ctx, caller, inboxId);
  const deadline = ctx.now() + ctx.settings.deleteBudgetMs;
  let deleted = 0;
  for (;;) {
    const batch = await ctx.stores.inboxes.listMessages(inbox.id, EMPTY_BATCH);
    const removed = await Promise.all(
      batch.items.map(async (message) => {
        // False when another request deleted it meanwhile: it is not counted twice.
        if (!(await ctx.stores.inboxes.deleteMessage(inbox.id, message.id))) return 0;
        await ctx.stores.blobs.deletePrefix(blobKeys.message(inbox.id, message.id));
        return 1;
      }),
    );
    deleted += removed.reduce<number>((sum, n) => sum + n, 0);
    if (!batch.last) return { deleted_count: deleted, finished: true };
    if (ctx.now() >= deadline) return { deleted_count: deleted, finished: false };
  }
}

export interface WaitQuery {
  timeout?: number;
  after?: string;
  from?: string;
  subject?: string;
}

const POLL_MS = 250;

/** Holds until a message newer than `after` that matches `from`/`subject` (substrings, any case) exists. */
export async function waitForMessage(ctx: AppContext, caller: Caller, inboxId: string, query: WaitQuery) {
  // A malformed `after` never gets here: the query schema answers it with 400.
  const deadline = ctx.now() + (query.timeout ?? DEFAULT_WAIT_SECONDS) * 1000;
  const filter = messageFilter({ from: query.from, subject: query.subject });
  let after = query.after;
  for (;;) {
    const inbox = await ownedInbox(ctx, caller, inboxId);
    for (;;) {
      const batch = await ctx.stores.inboxes.messagesSince(inbox.id, after, 100);
      const hit = batch.items.find((m) => matches(searchFields(m), filter));
      if (hit) {
        const message = await ctx.stores.inboxes.getMessage(inbox.id, hit.id);
        if (message) return { message: await fullMessage(ctx, message), timed_out: false };
      }
      if (!batch.last) break;
      after = batch.last;
    }
    const left = deadline - ctx.now();
    if (left <= 0) return { message: null, timed_out: true };
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, left)));
  }
}
