/**
 * The API's shapes as zod schemas: handlers validate requests with them and the OpenAPI document is generated
 * from them, so the two cannot drift.
 */
// zod/mini, the tree-shakable form of zod 4: 19 KB in a bundle instead of 90 KB, which is a tenth of a cold start.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { GROUP_MAX_LENGTH, GROUP_PATTERN, GROUP_RULE, TEST_NAME_MAX_LENGTH, USERNAME_PATTERN, USERNAME_RULE } from '../core/address';
import { LINK_TEXT_CHARS } from '../core/extract';
import { SUBJECT_CUT_MARK } from '../core/message';
import { MESSAGE_ID } from '../core/ids';
import type { MessageSummaryField } from '../core/model';
import { DEFAULT_TTL_SECONDS, MIN_TTL_SECONDS } from '../core/inbox';
import { VERDICTS } from '../core/model';
import { maxTtlByPlan } from '../core/plans';
import { DEFAULT_PAGE_SIZE, MAX_FILTER_SCAN_ITEMS, MAX_PAGE_SIZE, MAX_WAIT_SECONDS, DEFAULT_WAIT_SECONDS, MESSAGE_CAPS, MESSAGE_RESPONSE_SHARES } from '../core/limits';

// Full zod registers its English messages; zod/mini leaves every check without its own `error` saying "Invalid input".
z.config(en());

/** Names a schema in the OpenAPI document's components (and describes it). */
export const named = <T extends z.ZodMiniType>(schema: T, id: string, description?: string): T => schema.check(z.meta({ id, ...(description ? { description } : {}) }));
export const described = <T extends z.ZodMiniType>(schema: T, description: string): T => schema.check(z.meta({ description }));
/** Counts and sizes: whole and never negative. */
const count = () => z.int().check(z.gte(0));

/**
 * A query parameter holding an integer from min to max. It arrives as a string and is checked as one; the metadata
 * makes the OpenAPI document show it as the integer it is (openapi.ts drops the string pattern).
 */
const queryInteger = (name: string, min: number, max: number, description: string) => {
  const error = `${name} must be an integer from ${min} to ${max}`;
  return z
    .pipe(
      z.string().check(z.regex(/^\d{1,6}$/, { error })),
      z.pipe(z.transform(Number), z.number().check(z.refine((n) => n >= min && n <= max, { error }))),
    )
    .check(z.meta({ type: 'integer', minimum: min, maximum: max, description } as Record<string, unknown>));
};

/** A group as a request names it (body or query): GROUP_RULE. */
const groupString = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'group is required' : 'group must be a string') }).check(
    z.minLength(1, { error: GROUP_RULE }),
    z.maxLength(GROUP_MAX_LENGTH, { error: GROUP_RULE }),
    z.regex(GROUP_PATTERN, { error: GROUP_RULE }),
  );

export const CreateInboxBody = named(
  z.strictObject({
    domain: z.optional(
      described(
        z.string({ error: 'domain must be a string' }),
        'one of the configured domains (any case); default the first. GET /v1/domains lists them',
      ),
    ),
    username: z.optional(
      described(
        z.string({ error: 'username must be a string' }).check(
          z.minLength(1, { error: USERNAME_RULE }),
          z.maxLength(64, { error: USERNAME_RULE }),
          z.regex(USERNAME_PATTERN, { error: USERNAME_RULE }),
        ),
        'the local part of the address, stored lower-case; default 10 random letters and digits. One live inbox per address',
      ),
    ),
    group: z.optional(
      described(
        groupString(),
        'a group (a CI run id, a worker id), stored lower-case: GET and DELETE /v1/inboxes?group= list and delete its inboxes together',
      ),
    ),
    test_name: z.optional(
      described(
        z.string({ error: 'test_name must be a string' }).check(
          z.minLength(1, { error: 'test_name must not be empty' }),
          z.maxLength(TEST_NAME_MAX_LENGTH, { error: `test_name must be at most ${TEST_NAME_MAX_LENGTH} characters` }),
        ),
        'with group, instead of username: the username is derived from group and test name, the same on every run (<group>-<slug of the name>-<8 hex digits>, docs/API.md "Inbox groups")',
      ),
    ),
    ttl: z.optional(
      described(
        z.int({ error: 'ttl must be an integer number of seconds' }).check(
          z.gte(MIN_TTL_SECONDS, { error: `ttl must be at least ${MIN_TTL_SECONDS} seconds` }),
        ),
        `lifetime in seconds, default ${DEFAULT_TTL_SECONDS}; above the plan's maximum (${maxTtlByPlan()}) is 403`,
      ),
    ),
  }),
  'CreateInboxRequest',
);

const inboxId = described(z.string(), 'inbox_ and 20 characters, as POST /v1/inboxes returned it; a malformed id is 404');
const messageId = described(z.string(), 'msg_ and 26 characters, as the messages endpoints returned it; a malformed id is 404');
export const InboxPath = z.object({ inbox_id: inboxId });
export const MessagePath = z.object({ inbox_id: inboxId, message_id: messageId });
export const NoQuery = z.strictObject({});

/** GET …/raw: `as=url` answers the link as JSON instead of a redirect (a browser follows a redirect with the API key). */
export const RawQuery = z.strictObject({
  as: z.optional(described(z.literal('url'), "url: answer 200 with the download link as JSON instead of redirecting to it (for browsers: a redirect followed by fetch carries the X-API-Key header to the link's host)")),
});
export const RawLink = named(
  z.strictObject({
    download_url: described(z.url(), 'pre-signed URL of the raw mail (message/rfc822); fetch it without the API key'),
    expires_in: described(z.int(), 'seconds the link stays valid'),
  }),
  'RawLink',
);

export const ListInboxesQuery = z.strictObject({
  limit: z.optional(queryInteger('limit', 1, MAX_PAGE_SIZE, `inboxes per page, default ${DEFAULT_PAGE_SIZE}`)),
  cursor: z.optional(described(z.string().check(z.maxLength(200)), 'the next_cursor of the previous page')),
  group: z.optional(described(groupString(), 'only the inboxes created in this group (any case)')),
});

/** DELETE /v1/inboxes: the group is required (there is no delete-everything). */
export const DeleteInboxesQuery = z.strictObject({
  group: described(groupString(), 'the group whose inboxes to delete (any case)'),
});

export const ListMessagesQuery = z.strictObject({
  limit: z.optional(queryInteger('limit', 1, MAX_PAGE_SIZE, `messages per page, default ${DEFAULT_PAGE_SIZE}`)),
  cursor: z.optional(described(z.string().check(z.maxLength(200)), 'the next_cursor of the previous page')),
  q: z.optional(described(z.string().check(z.maxLength(200)), 'case-insensitive substring of the subject, the sender ("name <address>") or the text')),
  from: z.optional(described(z.string().check(z.maxLength(320)), 'case-insensitive substring of the sender, "name <address>"')),
  subject: z.optional(described(z.string().check(z.maxLength(998)), 'case-insensitive substring of the subject')),
});

/** Pages the viewer's static files; any query (a cache-buster) is ignored. */
export const ViewerQuery = z.object({});
export const ViewerPath = z.object({ asset: z.optional(z.string()) });

export const WaitQuery = z.strictObject({
  timeout: z.optional(queryInteger('timeout', 1, MAX_WAIT_SECONDS, `seconds to hold the request, default ${DEFAULT_WAIT_SECONDS}`)),
  after: z.optional(
    described(
      z.string().check(z.regex(MESSAGE_ID, { error: 'after must be a message id (msg_…) as this API returns them' })),
      'only messages that arrived after this message id. Without it, the oldest matching message already in the inbox qualifies',
    ),
  ),
  from: z.optional(described(z.string().check(z.maxLength(320)), 'case-insensitive substring of the sender, matched against "name <address>"')),
  subject: z.optional(described(z.string().check(z.maxLength(998)), 'case-insensitive substring of the subject')),
});

const timestamp = z.iso.datetime();

const InboxGroup = described(z.nullable(z.string()), 'the group it was created in (lower-case), null for none');

export const InboxCreated = named(
  z.object({
    id: z.string(),
    email: z.email(),
    created_at: timestamp,
    expires_at: timestamp,
    ttl: count(),
    group: InboxGroup,
  }),
  'InboxCreated',
);

export const Inbox = named(
  z.object({
    id: z.string(),
    email: z.email(),
    created_at: timestamp,
    expires_at: timestamp,
    message_count: count(),
    status: described(z.enum(['active', 'expired']), 'expired inboxes are listed as such until they are removed (an hour after expiry)'),
    group: InboxGroup,
  }),
  'Inbox',
);

export const InboxList = named(
  z.object({ inboxes: z.array(Inbox), next_cursor: z.optional(z.string()) }),
  'InboxList',
  "the caller's inboxes, newest first",
);

/** A schema for each of the summary's fields: exactly MESSAGE_SUMMARY_FIELDS (core/model.ts), no more, no fewer. */
const summaryShape = {
  id: z.string(),
  from: z.string(),
  from_name: z.nullable(z.string()),
  subject: described(z.string(), `cut to ${MESSAGE_CAPS.summarySubjectChars} characters in lists, the last of them ${SUBJECT_CUT_MARK} (the message has it whole)`),
  received_at: timestamp,
  size: described(count(), 'bytes of the raw MIME message as stored (with the Return-Path and Received fields the receiving server prepended)'),
  envelope: described(
    z.nullable(z.object({ from: described(z.string(), 'MAIL FROM (empty for a bounce)'), to: described(z.string(), 'the RCPT TO this inbox received the mail for, as sent: its +tag and case kept') })),
    "the SMTP envelope the mail was delivered with (the message's `to` is the inbox address); null for messages stored before it was kept",
  ),
} satisfies Record<MessageSummaryField, z.ZodMiniType>;

export const MessageSummary = named(z.object(summaryShape), 'MessageSummary');

export const MessageList = named(
  z.object({
    messages: z.array(MessageSummary),
    total: described(count(), "the inbox's whole count, filtered or not"),
    matched: z.optional(
      described(
        count(),
        `with q, from or subject: how many messages match from this page's start on (the page's own included), counted within the search's bound of ${MAX_FILTER_SCAN_ITEMS} messages read per request`,
      ),
    ),
    matched_exact: z.optional(described(z.boolean(), 'with matched: false when the bound stopped the count before the end of the inbox (matched then counts only the messages read; follow next_cursor for the rest)')),
    next_cursor: z.optional(described(z.string(), 'present while more remain; a filtered page may hold fewer than limit messages (even none) and still have one')),
  }),
  'MessageList',
);

export const Attachment = named(
  z.object({
    id: z.string(),
    filename: z.nullable(z.string()),
    content_type: z.string(),
    size: count(),
    content_id: z.nullable(z.string()),
    download_url: described(z.nullable(z.url()), 'pre-signed URL, valid for a short time; null when the message failed the virus scan (auth.virus FAIL)'),
  }),
  'Attachment',
);

const verdict = z.enum(VERDICTS);

const cut = (what: string) => `${what}; the raw message (GET …/raw) always has everything`;

const extractSource = z.enum(['subject', 'text', 'html']);

export const Verification = named(
  z.object({
    codes: described(
      z.array(z.object({ value: z.string(), source: described(extractSource, 'where it was found: the subject, the text (derived from the HTML when the mail has none) or the visible text of the HTML') })),
      'every code candidate, most likely first; a code found in two places is listed once per place',
    ),
    links: described(
      z.array(
        z.object({
          url: z.string(),
          text: described(
            z.string(),
            `HTML: the anchor's visible text (an image's alt text when it has none), empty for an href outside an anchor; text: the words before the link on its line. At most ${LINK_TEXT_CHARS} characters`,
          ),
          source: z.enum(['html', 'text']),
        }),
      ),
      `the http(s) links in order, HTML first, one entry per distinct url, text and source; at most ${MESSAGE_CAPS.links}, none longer than ${MESSAGE_CAPS.linkChars} characters`,
    ),
    links_truncated: described(z.boolean(), 'links were left out'),
  }),
  'Verification',
  'codes and links with where each was found, for picking exactly one (derived from the subject, text and HTML when the message is read)',
);

export const Message = named(
  z.object({
    ...summaryShape,
    subject: described(z.string(), 'whole (lists cut it)'),
    to: z.string(),
    cc: described(z.array(z.string()), cut(`Cc addresses, at most ${MESSAGE_CAPS.addresses}`)),
    reply_to: described(z.array(z.string()), cut(`Reply-To addresses, at most ${MESSAGE_CAPS.addresses}`)),
    text: described(z.string(), 'the text/plain part, or text derived from the HTML when the mail has none'),
    html: z.string(),
    body_truncated: described(z.boolean(), `text or html was cut to ${MESSAGE_RESPONSE_SHARES.body.toLocaleString('en')} bytes each as Lambda counts its response (JSON escaped twice; Lambda answers at most 6 MB); the raw download has everything`),
    message_id: described(z.nullable(z.string()), 'the Message-ID header'),
    in_reply_to: described(z.nullable(z.string()), 'the In-Reply-To header'),
    attachments: described(z.array(Attachment), cut(`in MIME order, at most ${MESSAGE_CAPS.attachments}`)),
    attachment_count: described(count(), 'attachments the mail has (more than listed when attachments_truncated)'),
    attachments_truncated: z.boolean(),
    codes: described(z.array(z.string()), 'verification codes found in subject and text, most likely first'),
    links: described(
      z.array(z.string()),
      cut(`http(s) links of the HTML and text, in order, de-duplicated; at most ${MESSAGE_CAPS.links}, none longer than ${MESSAGE_CAPS.linkChars} characters`),
    ),
    links_truncated: described(z.boolean(), 'links were left out'),
    verification: Verification,
    headers: described(
      z.array(z.object({ name: z.string(), value: z.string() })),
      cut(`the header fields in order, values decoded; at most ${MESSAGE_CAPS.headers}, each value cut at ${MESSAGE_CAPS.headerValueChars} characters`),
    ),
    headers_truncated: described(z.boolean(), 'header fields were left out or a value was cut'),
    auth: z.object({ spf: verdict, dkim: verdict, dmarc: verdict, spam: verdict, virus: verdict }),
    parse_error: described(
      z.nullable(z.string()),
      'set when the mail could not be parsed or stored in full: the message then holds its headers and its body as plain text, and no attachments',
    ),
  }),
  'Message',
);

export const MessageSnapshot = named(
  z.object({
    id: z.string(),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    truncated: described(z.boolean(), `a field was cut to its share of the answer (text and html ${MESSAGE_RESPONSE_SHARES.body.toLocaleString('en')} bytes each, as a message's)`),
  }),
  'MessageSnapshot',
  'the subject, text and HTML with what changes between runs (codes, dates and times, message ids, the inbox address, signed or token-bearing URL parts, tracking parameters, MIME boundaries) replaced by stable placeholders such as <CODE-1>, by the rules of docs/API.md "Snapshots"',
);

export const WaitResult = named(
  z.object({ message: z.nullable(Message), timed_out: z.boolean() }),
  'WaitResult',
  `holds up to timeout seconds (default ${DEFAULT_WAIT_SECONDS})`,
);

export const Deleted = named(z.object({ deleted: z.literal(true) }), 'Deleted');
export const InboxEmptied = named(
  z.object({
    deleted_count: described(count(), 'messages this request deleted'),
    finished: described(z.boolean(), 'true (200): the inbox held no message when the request ended; false (202): the request ran out of its time first, repeat it to go on'),
  }),
  'InboxEmptied',
  'the answer of DELETE …/messages: 200 when finished, 202 when a repeat is needed',
);
export const GroupDeleted = named(
  z.object({
    deleted_count: described(count(), 'inboxes this request deleted to the end'),
    finished: described(z.boolean(), 'true (200): every inbox the group held is deleted; false (202): the request ran out of its time first, repeat it to go on'),
  }),
  'GroupDeleted',
  'the answer of DELETE /v1/inboxes?group=: 200 when finished, 202 when a repeat is needed',
);
export const Domains = named(z.object({ domains: z.array(z.string()) }), 'Domains');
export const ErrorResponse = named(z.object({ error: z.object({ code: described(z.int().check(z.gte(400), z.lte(599)), 'the HTTP status'), message: z.string() }) }), 'Error');

// --- webhooks (lambdas/core/webhook-*.ts have the rules) ---------------------------------------------------------

const webhookEvent = z.enum(['message.received', 'inbox.expired']);

export const CreateWebhookBody = named(
  z.strictObject({
    url: z.string({ error: 'url must be a string' }),
    inbox_id: z.optional(z.string({ error: 'inbox_id must be a string' })),
    events: z.optional(
      z.array(webhookEvent, { error: 'events must be a list of: message.received, inbox.expired' }).check(z.minLength(1, { error: 'events must name at least one event' })),
    ),
    description: z.optional(z.string({ error: 'description must be a string' }).check(z.maxLength(200, { error: 'description must be at most 200 characters' }))),
  }),
  'CreateWebhookRequest',
);

export const WebhookPath = z.object({ webhook_id: z.string() });

export const ListWebhooksQuery = z.strictObject({
  limit: z.optional(queryInteger('limit', 1, MAX_PAGE_SIZE, `webhooks per page, default ${DEFAULT_PAGE_SIZE}`)),
  cursor: z.optional(z.string().check(z.maxLength(200))),
});

const webhookShape = {
  id: z.string(),
  url: z.string(),
  inbox_id: described(z.nullable(z.string()), 'null: every inbox of the account'),
  events: z.array(webhookEvent),
  description: z.nullable(z.string()),
  status: described(z.enum(['enabled', 'disabled']), 'disabled after 410 Gone or a whole failed retry schedule; disabled_reason says which'),
  disabled_reason: z.nullable(z.string()),
  disabled_at: z.nullable(timestamp),
  created_at: timestamp,
};

export const Webhook = named(z.object(webhookShape), 'Webhook');

export const WebhookCreated = named(
  z.object({ ...webhookShape, secret: described(z.string(), 'the Standard Webhooks signing secret (whsec_…); shown in this answer only') }),
  'WebhookCreated',
);

export const WebhookList = named(z.object({ webhooks: z.array(Webhook), next_cursor: z.optional(z.string()) }), 'WebhookList');

export const WebhookTestQueued = named(
  z.object({ event_id: described(z.string(), 'the webhook-id header of the delivery; its attempts show under deliveries'), queued: z.literal(true) }),
  'WebhookTestQueued',
);

export const WebhookDelivery = named(
  z.object({
    event_id: z.string(),
    event_type: z.enum(['message.received', 'inbox.expired', 'webhook.test']),
    attempt: count(),
    attempted_at: timestamp,
    status: described(z.nullable(count()), "the receiver's HTTP status; null when it gave none (see error)"),
    error: z.nullable(z.string()),
    duration_ms: count(),
    response_excerpt: described(z.nullable(z.string()), 'the first 256 bytes of the answer, nothing more is kept'),
    outcome: z.enum(['delivered', 'retrying', 'failed', 'disabled']),
    next_retry_at: z.nullable(timestamp),
  }),
  'WebhookDelivery',
);

export const WebhookDeliveries = named(z.object({ deliveries: z.array(WebhookDelivery) }), 'WebhookDeliveries');
