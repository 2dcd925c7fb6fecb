/**
 * The shapes of POST /v1/inboxes/{id}/messages/wait (waiting with conditions), written out as the server's schemas
 * produce them (lambdas/contract/wait-schemas.ts; test/unit/client-types.test.ts proves them equal).
 */
import type { Message } from './types.js';

/** `header:<Name>` tests every header field of that name (any case). */
export type WaitField = 'subject' | 'from' | 'to' | 'text' | 'html' | 'attachment_name' | `header:${string}`;

export interface WaitCondition {
  field: string;
  /** contains and equals ignore case; regex is RE2 syntax (no look-around or back-references), case-sensitive unless (?i). */
  op: 'contains' | 'equals' | 'regex';
  value: string;
}

export interface WaitRequest {
  conditions?: WaitCondition[] | undefined;
  match?: 'all' | 'any' | undefined;
  count?: number | undefined;
  exact?: boolean | undefined;
  none?: boolean | undefined;
  timeout?: number | undefined;
  after?: string | undefined;
}

export interface WaitMessages {
  messages: Message[];
}

export interface NearMiss {
  id: string;
  from: string;
  subject: string;
  received_at: string;
  failed: { field: string; op: 'contains' | 'equals' | 'regex'; value: string; seen: string | null }[];
}

/** Options of `waitFor`: conditions as the endpoint takes them, and a timeout of any length (the client repeats the request). */
export type WaitForOptions = Omit<WaitRequest, 'none'>;
/** Options of `expectNoMessage`: the conditions no message may match within `timeout` seconds (any length). */
export type ExpectNoMessageOptions = Pick<WaitRequest, 'conditions' | 'match' | 'timeout' | 'after'>;
