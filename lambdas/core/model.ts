/** The records the service keeps, independent of where they are kept. */
import type { PlanName } from './plans';

export interface ApiKeyRecord {
  key_hash: string;
  account_id: string;
  plan: PlanName;
  /** API Gateway's id for the key (AWS only). */
  api_key_id?: string;
  hint: string;
  created_at: string;
  revoked_at?: string;
}

export interface InboxRecord {
  id: string;
  email: string;
  account_id: string;
  /** The owner's plan when the inbox was made: sets the daily e-mail limit at ingest without a key lookup. */
  plan: PlanName;
  created_at: string;
  expires_at: string;
  expires_at_epoch: number;
  ttl: number;
  message_count: number;
  /**
   * The sum of its messages' `stored_bytes`, kept with message_count; its account's storage usage holds it until the
   * inbox is marked deleting or removed. Absent: none (inboxes from before the quota, and the one a store just made).
   */
  stored_bytes?: number;
  /** Set by DELETE: gone for its owner and its address free, while its messages are still being removed. */
  deleting?: true;
  /** Its group (core/address.ts GROUP_RULE, lower-case), when created in one: listed and deleted with it. */
  group?: string;
}

/** What an inbox list shows of each inbox (an index projects only these on AWS: lambdas/layout/table-layout.ts). */
export type InboxListing = Pick<InboxRecord, 'id' | 'email' | 'created_at' | 'expires_at' | 'expires_at_epoch' | 'message_count' | 'deleting' | 'group'>;

/**
 * What routing mail to an inbox needs; the address claim carries it, so a recipient costs one read. `created_at` is
 * absent from claims written before it was kept: ingest then cannot tell mail received before the inbox from after.
 */
export type InboxRoute = Pick<InboxRecord, 'id' | 'email' | 'account_id' | 'plan' | 'expires_at_epoch'> & Partial<Pick<InboxRecord, 'created_at'>>;

/** SES's receipt verdicts, the one list the model's type, the API's schema and the ingest handler read. */
export const VERDICTS = ['PASS', 'FAIL', 'GRAY', 'PROCESSING_FAILED', 'DISABLED'] as const;
export type Verdict = (typeof VERDICTS)[number];
export interface AuthVerdicts {
  spf: Verdict;
  dkim: Verdict;
  dmarc: Verdict;
  spam: Verdict;
  virus: Verdict;
}

/** Where nothing checked the mail (the local form). */
export const DISABLED_VERDICTS: AuthVerdicts = { spf: 'DISABLED', dkim: 'DISABLED', dmarc: 'DISABLED', spam: 'DISABLED', virus: 'DISABLED' };

export interface AttachmentRecord {
  id: string;
  filename: string | null;
  content_type: string;
  size: number;
  content_id: string | null;
  /** Object key in the bucket. */
  key: string;
}

/**
 * The fields a message list shows of each message (GET …/messages, the viewer's list): the one list. The stores keep
 * these per message for lists (DynamoDB projects them), the contract's MessageSummary schema is keyed by it and its
 * view picks them (lambdas/contract/), and the client's MessageSummary type has exactly these keys
 * (test/unit/client-types.test.ts fails `npm run typecheck` otherwise); the MCP server's list output follows the client.
 */
export const MESSAGE_SUMMARY_FIELDS = ['id', 'from', 'from_name', 'subject', 'received_at', 'size', 'envelope'] as const;
export type MessageSummaryField = (typeof MESSAGE_SUMMARY_FIELDS)[number];

/** A message as lists show it: MESSAGE_SUMMARY_FIELDS of its record (capped: core/message.ts summaryFields). */
export type MessageSummary = Pick<MessageRecord, MessageSummaryField>;

/**
 * A message's summary: its MESSAGE_SUMMARY_FIELDS and nothing else, from a stored record or from a message the API
 * answered (the viewer's new mail). A field the record lacks (kept only since some version) stays absent.
 */
export function summaryOf<T extends Partial<Record<MessageSummaryField, unknown>>>(m: T): Pick<T, MessageSummaryField> {
  const summary: Partial<Record<MessageSummaryField, unknown>> = {};
  for (const field of MESSAGE_SUMMARY_FIELDS) if (m[field] !== undefined) summary[field] = m[field];
  return summary as Pick<T, MessageSummaryField>;
}

export interface MailHeader {
  name: string;
  value: string;
}

/**
 * What a message holds beyond its summary: bounded by MESSAGE_CAPS (core/limits.ts), and kept in the message item
 * when it is small, else in the message's body object (core/message.ts decides).
 */
export interface MessageDetail {
  text: string;
  html: string;
  attachments: AttachmentRecord[];
  /** Attachments the mail has; more than `attachments` lists when it was cut. */
  attachment_count: number;
  codes: string[];
  links: string[];
  links_truncated: boolean;
  cc: string[];
  reply_to: string[];
  message_id: string | null;
  in_reply_to: string | null;
  headers: MailHeader[];
  /** Headers left out or a header value cut. */
  headers_truncated: boolean;
  /** Set when the mail could not be parsed or stored in full, and was stored in a degraded form (see README). */
  parse_error: string | null;
  /** The whole subject / from name, present only when the summary's are cut. */
  full_subject?: string;
  full_from_name?: string;
  /** text or html was cut to BODY_KEPT_CHARS (core/message.ts): at ingest, or on the read of an older, whole one. */
  bodies_cut?: true;
}

/**
 * The stored message: its summary (capped) and fixed fields, and either the detail inline or `body_key`, which
 * names a JSON object in the bucket holding the detail. Records written before the detail was bounded keep
 * `attachments`, `codes` and `links` inline and only `{text, html}` in the body object; readers merge both.
 */
export interface MessageRecord extends Partial<MessageDetail> {
  id: string;
  /** The From address, else MAIL FROM; capped (MESSAGE_CAPS.addressChars). */
  from: string;
  from_name: string | null;
  /** Cut to MESSAGE_CAPS.summarySubjectChars (the detail's full_subject is whole). */
  subject: string;
  received_at: string;
  /** Bytes of the raw mail. */
  size: number;
  inbox_id: string;
  to: string;
  /**
   * The SMTP envelope the mail was delivered with: `to` the recipient this inbox received it for, as sent (with its
   * +tag and case), `from` the sender (MAIL FROM; empty for a bounce). Absent on messages stored before it was kept.
   */
  envelope?: { from: string; to: string };
  body_key?: string;
  auth: AuthVerdicts;
  raw_key: string;
  /**
   * Bytes the message keeps in the bucket toward its account's storage quota (plan `storage_bytes`): the raw mail
   * plus its stored attachments. Absent on messages stored before the quota (they count as nothing).
   */
  stored_bytes?: number;
}

export interface Caller {
  account_id: string;
  plan: PlanName;
}
