/** Message use cases: list, read, raw, delete, wait. */
import { decodeCursor, encodeCursor } from '../core/cursor';
import { attachmentDownload } from '../core/downloads';
import { blobKeys } from '../core/ports';
import { forbidden, notFound } from '../core/errors';
import { INBOX_ID, MESSAGE_ID } from '../core/ids';
import { DEFAULT_PAGE_SIZE, DEFAULT_WAIT_SECONDS } from '../core/limits';
import type { Caller, MessageRecord } from '../core/model';
import { matches, messageFilter, searchFields } from '../core/search';
import { summaryView, messageView } from '../core/views';
import type { AppContext } from './context';
import { ownedInbox } from './inboxes';

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
  // The page is read before the inbox: a message and the count it adds commit together, and a page read first can
  // only hold messages the later count includes. The page is discarded unless the caller owns a live inbox.
  const page = INBOX_ID.test(inboxId) ? await ctx.stores.inboxes.listMessages(inboxId, query.limit ?? DEFAULT_PAGE_SIZE, after, filter) : { items: [] };
  const inbox = await ownedInbox(ctx, caller, inboxId);
  return {
    messages: page.items.map(summaryView),
    total: inbox.message_count,
    ...('last' in page && page.last ? { next_cursor: encodeCursor(page.last) } : {}),
  };
}

async function ownedMessage(ctx: AppContext, caller: Caller, inboxId: string, messageId: string): Promise<MessageRecord> {
  const inbox = await ownedInbox(ctx, caller, inboxId);
  const message = MESSAGE_ID.test(messageId) ? await ctx.stores.inboxes.getMessage(inbox.id, messageId) : null;
  if (!message) throw notFound(`message not found: ${messageId}`);
  return message;
}

export async function fullMessage(ctx: AppContext, message: MessageRecord) {
  let body = { text: message.text ?? '', html: message.html ?? '' };
  if (message.body_key) {
    const stored = await ctx.stores.blobs.get(message.body_key);
    if (stored) body = JSON.parse(stored.toString('utf8')) as typeof body;
  }
  const urls = await Promise.all(
    message.attachments.map((a) => ctx.stores.blobs.presignGet(a.key, ctx.settings.downloadUrlSeconds, attachmentDownload(a))),
  );
  return messageView(message, body, urls);
}

export async function getMessage(ctx: AppContext, caller: Caller, inboxId: string, messageId: string) {
  return fullMessage(ctx, await ownedMessage(ctx, caller, inboxId, messageId));
}

export async function getRawMessage(ctx: AppContext, caller: Caller, inboxId: string, messageId: string): Promise<Buffer> {
  const message = await ownedMessage(ctx, caller, inboxId, messageId);
  const raw = await ctx.stores.blobs.get(message.raw_key);
  if (!raw) throw notFound(`raw form of message ${messageId} is no longer stored`);
  return raw;
}

export async function deleteMessage(ctx: AppContext, caller: Caller, inboxId: string, messageId: string): Promise<void> {
  const message = await ownedMessage(ctx, caller, inboxId, messageId);
  if (!(await ctx.stores.inboxes.deleteMessage(inboxId, message.id))) throw notFound(`message not found: ${messageId}`);
  await ctx.stores.blobs.deletePrefix(blobKeys.message(inboxId, message.id));
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
  if (query.after !== undefined && !MESSAGE_ID.test(query.after)) throw notFound(`message not found: ${query.after}`);
  const deadline = ctx.now() + (query.timeout ?? DEFAULT_WAIT_SECONDS) * 1000;
  const filter = messageFilter({ from: query.from, subject: query.subject });
  let after = query.after;
  for (;;) {
    const inbox = await ownedInbox(ctx, caller, inboxId);
    for (;;) {
      const batch = await ctx.stores.inboxes.messagesSince(inbox.id, after, 100);
      const hit = batch.find((m) => matches(searchFields(m), filter));
      if (hit) {
        const message = await ctx.stores.inboxes.getMessage(inbox.id, hit.id);
        if (message) return { message: await fullMessage(ctx, message), timed_out: false };
      }
      if (batch.length < 100) break;
      after = batch[batch.length - 1].id;
    }
    const left = deadline - ctx.now();
    if (left <= 0) return { message: null, timed_out: true };
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, left)));
  }
}

/**
 * A download link the local gateway serves (the embedded store signs them; on AWS S3 serves its own pre-signed
 * URLs). 403 for an edited or expired link, 404 once the object is gone.
 */
export async function openDownload(ctx: AppContext, path: string, query: URLSearchParams) {
  const opened = ctx.stores.downloads ? await ctx.stores.downloads.open(path, query, ctx.now()) : 'forbidden';
  if (opened === 'forbidden') throw forbidden('this download link is invalid or has expired');
  if (!opened) throw notFound('this object is no longer stored');
  return opened;
}
