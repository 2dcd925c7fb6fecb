/**
 * The API's shapes as a client sees them. Written out here so that the package stands alone (no zod, nothing of the
 * server); test/unit/client-types.test.ts makes the type checker prove that each equals what the server's schemas
 * (lambdas/contract/schemas.ts) produce, so they cannot drift.
 */

/** The answer to POST /v1/inboxes. */
export interface InboxCreated {
  id: string;
  email: string;
  created_at: string;
  expires_at: string;
  /** Lifetime in seconds. */
  ttl: number;
  /** The group it was created in (lower-case), null for none. */
  group: string | null;
}

export interface Inbox {
  id: string;
  email: string;
  created_at: string;
  expires_at: string;
  message_count: number;
  /** Expired inboxes are listed as such until they are removed (an hour after expiry). */
  status: 'active' | 'expired';
  /** The group it was created in (lower-case), null for none. */
  group: string | null;
}

export interface InboxList {
  inboxes: Inbox[];
  next_cursor?: string;
}

export interface MessageSummary {
  id: string;
  from: string;
  from_name: string | null;
  subject: string;
  received_at: string;
  /** Bytes of the raw MIME message as stored (with the Return-Path and Received fields the receiving server prepended). */
  size: number;
  /**
   * The SMTP envelope: `to` is the RCPT TO this inbox received the mail for, as sent (with its +tag), `from` is MAIL
   * FROM (empty for a bounce). Null for messages stored before the envelope was kept.
   */
  envelope: { from: string; to: string } | null;
}

export interface MessageList {
  messages: MessageSummary[];
  /** The inbox's whole count, not this page's, filtered or not. */
  total: number;
  /**
   * With `q`, `from` or `subject`: how many messages match from this page's start on (the page's own included),
   * counted within the search's bound (docs/API.md); absent without a filter.
   */
  matched?: number;
  /** With `matched`: false when the bound stopped the count before the end of the inbox. */
  matched_exact?: boolean;
  /** Present while more messages remain: pass it as `cursor`. */
  next_cursor?: string;
}

export interface Attachment {
  id: string;
  filename: string | null;
  content_type: string;
  size: number;
  content_id: string | null;
  /** Pre-signed, valid for a short time (15 minutes); null when the message failed the virus scan (`auth.virus` FAIL). */
  download_url: string | null;
}

export type Verdict = 'PASS' | 'FAIL' | 'GRAY' | 'PROCESSING_FAILED' | 'DISABLED';

export interface Message {
  id: string;
  from: string;
  from_name: string | null;
  to: string;
  /**
   * The SMTP envelope: `to` is the RCPT TO this inbox received the mail for, as sent (with its +tag), `from` is MAIL
   * FROM (empty for a bounce). Null for messages stored before the envelope was kept.
   */
  envelope: { from: string; to: string } | null;
  /** Cc and Reply-To addresses (at most 100 each). */
  cc: string[];
  reply_to: string[];
  subject: string;
  /** The text/plain part, or text derived from the HTML when the mail has none. */
  text: string;
  html: string;
  /** Text or HTML was cut (each at 2 MB of JSON); the raw download has everything. */
  body_truncated: boolean;
  received_at: string;
  size: number;
  message_id: string | null;
  in_reply_to: string | null;
  /** In MIME order, at most 100; `attachment_count` is the mail's number, `attachments_truncated` flags a cut. */
  attachments: Attachment[];
  attachment_count: number;
  attachments_truncated: boolean;
  /** Verification codes found in subject and text, most likely first. */
  codes: string[];
  /** http(s) links of the HTML and text, in order, de-duplicated (at most 1,000; `links_truncated` flags a cut). */
  links: string[];
  links_truncated: boolean;
  /** Codes and links with where each was found (and each link's text): what `code()` and `link()` choose from. */
  verification: Verification;
  /** Every header field in order, values decoded (at most 500). */
  headers: { name: string; value: string }[];
  headers_truncated: boolean;
  auth: { spf: Verdict; dkim: Verdict; dmarc: Verdict; spam: Verdict; virus: Verdict };
  /** Set when the mail could not be parsed or stored in full (its headers and plain text are kept). */
  parse_error: string | null;
}

/** Where a code or link was found: the subject, the text part (derived from the HTML when the mail has none), the HTML. */
export type ExtractSource = 'subject' | 'text' | 'html';

export interface FoundCode {
  value: string;
  source: ExtractSource;
}

export interface FoundLink {
  url: string;
  /** HTML: the anchor's visible text (an image's alt when it has none; '' outside an anchor). Text: the words before it on its line. */
  text: string;
  source: 'html' | 'text';
}

export interface Verification {
  /** Every code candidate, most likely first; one found in two places is listed once per place. */
  codes: FoundCode[];
  /** The http(s) links in order, HTML first; one entry per distinct url, text and source (at most 1,000). */
  links: FoundLink[];
  links_truncated: boolean;
}

/** GET …/snapshot: the message normalised for snapshot tests (docs/API.md, "Snapshots"). */
export interface MessageSnapshot {
  id: string;
  subject: string;
  text: string;
  html: string;
  /** A field was cut to its share of the answer (as a message's). */
  truncated: boolean;
}

export interface WaitResult {
  message: Message | null;
  timed_out: boolean;
}

export interface Deleted {
  deleted: true;
}

/** GET …/raw?as=url: the raw mail's download link (fetch it without the API key). */
export interface RawLink {
  download_url: string;
  expires_in: number;
}

/** DELETE …/messages: what this request deleted, and whether the inbox is empty (`false`: repeat to go on). */
export interface InboxEmptied {
  deleted_count: number;
  finished: boolean;
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
  /** A group (a CI run id, a worker id): 1–32 of a-z 0-9 . _ -, starting and ending with a letter or digit. listInboxes({ group }) and deleteInboxes(group) act on it. */
  group?: string;
  /**
   * With `group`, instead of `username`: the username is derived from group and test name, the same on every run
   * (`<group>-<slug>-<8 hex digits>`, docs/API.md "Inbox groups"). At most 500 characters.
   */
  test_name?: string;
}

/** DELETE /v1/inboxes?group=: inboxes this request deleted, and whether the group is empty (`false`: repeat to go on). */
export interface GroupDeleted {
  deleted_count: number;
  finished: boolean;
}

export type WebhookEvent = 'message.received' | 'inbox.expired';

export interface CreateWebhookInput {
  url: string;
  /** Without it the webhook covers every inbox of the account. */
  inbox_id?: string;
  events?: WebhookEvent[];
  description?: string;
}

export interface Webhook {
  id: string;
  url: string;
  inbox_id: string | null;
  events: WebhookEvent[];
  description: string | null;
  /** Disabled after 410 Gone or a whole failed retry schedule; `disabled_reason` says which. */
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
}

export interface WebhookCreated extends Webhook {
  /** The Standard Webhooks signing secret (`whsec_…`), shown in this answer only. */
  secret: string;
}

export interface WebhookList {
  webhooks: Webhook[];
  next_cursor?: string;
}

export interface WebhookTestQueued {
  event_id: string;
  queued: true;
}

export interface WebhookDelivery {
  event_id: string;
  event_type: WebhookEvent | 'webhook.test';
  attempt: number;
  attempted_at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
  response_excerpt: string | null;
  outcome: 'delivered' | 'retrying' | 'failed' | 'disabled';
  next_retry_at: string | null;
}

export interface WebhookDeliveries {
  deliveries: WebhookDelivery[];
}
