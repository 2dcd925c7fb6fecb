/**
 * The API's shapes as zod schemas: handlers validate requests with them and the OpenAPI document is generated
 * from them, so the two cannot drift.
 */
// zod/mini, the tree-shakable form of zod 4: 19 KB in a bundle instead of 90 KB, which is a tenth of a cold start.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { MAX_PAGE_SIZE, MAX_WAIT_SECONDS, DEFAULT_WAIT_SECONDS, MESSAGE_CAPS } from './limits';

// Full zod registers its English messages; zod/mini leaves every check without its own `error` saying "Invalid input".
z.config(en());

/** Names a schema in the OpenAPI document's components (and describes it). */
const named = <T extends z.ZodMiniType>(schema: T, id: string, description?: string): T => schema.check(z.meta({ id, ...(description ? { description } : {}) }));
const described = <T extends z.ZodMiniType>(schema: T, description: string): T => schema.check(z.meta({ description }));
const int = () => z.int();

const intString = (name: string, min: number, max: number) => {
  const error = `${name} must be an integer from ${min} to ${max}`;
  return z.pipe(
    z.string().check(z.regex(/^\d{1,6}$/, { error })),
    z.pipe(z.transform(Number), z.number().check(z.refine((n) => n >= min && n <= max, { error }))),
  );
};

export const CreateInboxBody = named(
  z.strictObject({
    domain: z.optional(z.string({ error: 'domain must be a string' })),
    username: z.optional(z.string({ error: 'username must be a string' })),
    ttl: z.optional(z.int({ error: 'ttl must be an integer number of seconds' })),
  }),
  'CreateInboxRequest',
);

export const InboxPath = z.object({ inbox_id: z.string() });
export const MessagePath = z.object({ inbox_id: z.string(), message_id: z.string() });
export const NoQuery = z.strictObject({});

export const ListMessagesQuery = z.strictObject({
  limit: z.optional(intString('limit', 1, MAX_PAGE_SIZE)),
  cursor: z.optional(z.string().check(z.maxLength(200))),
});

export const WaitQuery = z.strictObject({
  timeout: z.optional(intString('timeout', 1, MAX_WAIT_SECONDS)),
  after: z.optional(z.string().check(z.maxLength(40))),
  from: z.optional(z.string().check(z.maxLength(320))),
  subject: z.optional(z.string().check(z.maxLength(998))),
});

const timestamp = z.iso.datetime();

export const InboxCreated = named(
  z.object({ id: z.string(), email: z.email(), created_at: timestamp, expires_at: timestamp, ttl: int() }),
  'InboxCreated',
);

export const Inbox = named(
  z.object({
    id: z.string(),
    email: z.email(),
    created_at: timestamp,
    expires_at: timestamp,
    message_count: int(),
    status: z.literal('active'),
  }),
  'Inbox',
);

export const MessageSummary = named(
  z.object({
    id: z.string(),
    from: z.string(),
    from_name: z.nullable(z.string()),
    subject: described(z.string(), `cut at ${MESSAGE_CAPS.summarySubjectChars} characters in lists (the message has it whole)`),
    received_at: timestamp,
    size: described(int(), 'bytes of the raw MIME message'),
  }),
  'MessageSummary',
);

export const MessageList = named(
  z.object({ messages: z.array(MessageSummary), total: int(), next_cursor: z.optional(z.string()) }),
  'MessageList',
);

export const Attachment = named(
  z.object({
    id: z.string(),
    filename: z.nullable(z.string()),
    content_type: z.string(),
    size: int(),
    content_id: z.nullable(z.string()),
    download_url: described(z.url(), 'pre-signed URL, valid for a short time'),
  }),
  'Attachment',
);

const verdict = z.enum(['PASS', 'FAIL', 'GRAY', 'PROCESSING_FAILED', 'DISABLED']);

const cut = (what: string) => `${what}; the raw message (GET …/raw) always has everything`;

export const Message = named(
  z.object({
    id: z.string(),
    from: z.string(),
    from_name: z.nullable(z.string()),
    to: z.string(),
    cc: described(z.array(z.string()), cut(`Cc addresses, at most ${MESSAGE_CAPS.addresses}`)),
    reply_to: described(z.array(z.string()), cut(`Reply-To addresses, at most ${MESSAGE_CAPS.addresses}`)),
    subject: z.string(),
    text: described(z.string(), 'the text/plain part, or text derived from the HTML when the mail has none'),
    html: z.string(),
    received_at: timestamp,
    size: int(),
    message_id: described(z.nullable(z.string()), 'the Message-ID header'),
    in_reply_to: described(z.nullable(z.string()), 'the In-Reply-To header'),
    attachments: described(z.array(Attachment), cut(`in MIME order, at most ${MESSAGE_CAPS.attachments}`)),
    attachment_count: described(int(), 'attachments the mail has (more than listed when attachments_truncated)'),
    attachments_truncated: z.boolean(),
    codes: described(z.array(z.string()), 'verification codes found in subject and text, most likely first'),
    links: described(
      z.array(z.string()),
      cut(`http(s) links of the HTML and text, in order, de-duplicated; at most ${MESSAGE_CAPS.links}, none longer than ${MESSAGE_CAPS.linkChars} characters`),
    ),
    links_truncated: described(z.boolean(), 'links were left out'),
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

export const WaitResult = named(
  z.object({ message: z.nullable(Message), timed_out: z.boolean() }),
  'WaitResult',
  `holds up to timeout seconds (default ${DEFAULT_WAIT_SECONDS})`,
);

export const Deleted = named(z.object({ deleted: z.literal(true) }), 'Deleted');
export const Domains = named(z.object({ domains: z.array(z.string()) }), 'Domains');
export const ErrorResponse = named(z.object({ error: z.object({ code: int(), message: z.string() }) }), 'Error');
