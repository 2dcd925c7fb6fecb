/** Opaque paging cursors: base64url of the last key seen. */
import { badRequest } from './errors';
import { INBOX_ID, MESSAGE_ID } from './ids';
import { WEBHOOK_ID } from './webhooks';

export const encodeCursor = (lastMessageId: string): string => Buffer.from(lastMessageId, 'utf8').toString('base64url');

export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!MESSAGE_ID.test(id)) throw badRequest('cursor is not a cursor this API returned');
  return id;
}

/** Where an inbox list page ends: inboxes are listed by creation time, then id, both descending. */
export interface InboxPosition {
  created_at: string;
  id: string;
}

const ISO_SECOND = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const encodeInboxCursor = (last: InboxPosition): string => Buffer.from(`${last.created_at} ${last.id}`, 'utf8').toString('base64url');

export function decodeInboxCursor(cursor: string): InboxPosition {
  const [created_at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split(' ');
  if (extra !== undefined || !ISO_SECOND.test(created_at ?? '') || !INBOX_ID.test(id ?? '')) throw badRequest('cursor is not a cursor this API returned');
  return { created_at, id };
}

/** Where a webhook list page ends: the last webhook id. */
export const encodeWebhookCursor = (lastId: string): string => Buffer.from(lastId, 'utf8').toString('base64url');
export function decodeWebhookCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!WEBHOOK_ID.test(id)) throw badRequest('cursor is not a cursor this API returned');
  return id;
}
