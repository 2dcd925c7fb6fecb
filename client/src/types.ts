/**
 * The API's shapes as a client sees them. Written out here so that the package stands alone (no zod, nothing of the
 * server); test/unit/client-types.test.ts makes the type checker prove that each equals what the server's schemas
 * (lambdas/core/schemas.ts) produce, so they cannot drift.
 */

/** The answer to POST /v1/inboxes. */
export interface InboxCreated {
  id: string;
  email: string;
  created_at: string;
  expires_at: string;
  /** Lifetime in seconds. */
  ttl: number;
}

export interface Inbox {
  id: string;
  email: string;
  created_at: string;
  expires_at: string;
  message_count: number;
  status: 'active';
}

export interface MessageSummary {
  id: string;
  from: string;
  from_name: string | null;
  subject: string;
  received_at: string;
  /** Bytes of the raw MIME message. */
  size: number;
}

export interface MessageList {
  messages: MessageSummary[];
  /** The inbox's whole count, not this page's. */
  total: number;
  /** Present while more messages remain: pass it as `cursor`. */
  next_cursor?: string;
}

export interface Attachment {
  id: string;
  filename: string | null;
  content_type: string;
  size: number;
  content_id: string | null;
  /** Pre-signed, valid for a short time (15 minutes). */
  download_url: string;
}

export type Verdict = 'PASS' | 'FAIL' | 'GRAY' | 'PROCESSING_FAILED' | 'DISABLED';

export interface Message {
  id: string;
  from: string;
  from_name: string | null;
  to: string;
  subject: string;
  text: string;
  html: string;
  received_at: string;
  size: number;
  attachments: Attachment[];
  /** Verification codes found in subject and text, most likely first. */
  codes: string[];
  /** http(s) links of the HTML and text, in order, de-duplicated. */
  links: string[];
  auth: { spf: Verdict; dkim: Verdict; dmarc: Verdict; spam: Verdict; virus: Verdict };
}

export interface WaitResult {
  message: Message | null;
  timed_out: boolean;
}

export interface Deleted {
  deleted: true;
}

export interface Domains {
  domains: string[];
}

export interface CreateInboxInput {
  /** One of listDomains(); default the first. */
  domain?: string;
  /** 1–64 of a-z 0-9 . _ -, starting and ending with a letter or digit; default random. */
  username?: string;
  /** Lifetime in seconds: at least 60, default 3600, at most the plan's maximum. */
  ttl?: number;
}
