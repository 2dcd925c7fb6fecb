/** Opaque paging cursors: base64url of the last key seen. */
import { badRequest } from './errors';
import { MESSAGE_ID } from './ids';

export const encodeCursor = (lastMessageId: string): string => Buffer.from(lastMessageId, 'utf8').toString('base64url');

export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!MESSAGE_ID.test(id)) throw badRequest('cursor is not a cursor this API returned');
  return id;
}
