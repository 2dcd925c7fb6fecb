/**
 * The API's shapes as zod schemas: handlers validate requests with them and the OpenAPI document is generated
 * from them, so the two cannot drift.
 */
// Namespace import: the named `z` export drags every locale of zod into a bundle (~450 KB).
import * as z from 'zod';
import { MAX_PAGE_SIZE, MAX_WAIT_SECONDS, DEFAULT_WAIT_SECONDS } from './limits';

const intString = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, { error: `${name} must be an integer from ${min} to ${max}` })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: `${name} must be an integer from ${min} to ${max}` });

export const CreateInboxBody = z
  .strictObject({
    domain: z.string({ error: 'domain must be a string' }).optional(),
    username: z.string({ error: 'username must be a string' }).optional(),
    ttl: z
      .number({ error: 'ttl must be an integer number of seconds' })
      .int({ error: 'ttl must be an integer number of seconds' })
      .optional(),
  })
  .meta({ id: 'CreateInboxRequest' });

export const InboxPath = z.object({ inbox_id: z.string() });
export const MessagePath = z.object({ inbox_id: z.string(), message_id: z.string() });
export const NoQuery = z.strictObject({});

export const ListMessagesQuery = z.strictObject({
  limit: intString('limit', 1, MAX_PAGE_SIZE).optional(),
  cursor: z.string().max(200).optional(),
});

export const WaitQuery = z.strictObject({
  timeout: intString('timeout', 1, MAX_WAIT_SECONDS).optional(),
  after: z.string().max(40).optional(),
  from: z.string().max(320).optional(),
  subject: z.string().max(998).optional(),
});

const timestamp = z.iso.datetime();

export const InboxCreated = z
  .object({ id: z.string(), email: z.email(), created_at: timestamp, expires_at: timestamp, ttl: z.number().int() })
  .meta({ id: 'InboxCreated' });

export const Inbox = z
  .object({
    id: z.string(),
    email: z.email(),
    created_at: timestamp,
    expires_at: timestamp,
    message_count: z.number().int(),
    status: z.literal('active'),
  })
  .meta({ id: 'Inbox' });

export const MessageSummary = z
  .object({
    id: z.string(),
    from: z.string(),
    from_name: z.string().nullable(),
    subject: z.string(),
    received_at: timestamp,
    size: z.number().int().meta({ description: 'bytes of the raw MIME message' }),
  })
  .meta({ id: 'MessageSummary' });

export const MessageList = z
  .object({ messages: z.array(MessageSummary), total: z.number().int(), next_cursor: z.string().optional() })
  .meta({ id: 'MessageList' });

export const Attachment = z
  .object({
    id: z.string(),
    filename: z.string().nullable(),
    content_type: z.string(),
    size: z.number().int(),
    content_id: z.string().nullable(),
    download_url: z.url().meta({ description: `pre-signed URL, valid for a short time` }),
  })
  .meta({ id: 'Attachment' });

const verdict = z.enum(['PASS', 'FAIL', 'GRAY', 'PROCESSING_FAILED', 'DISABLED']);

export const Message = z
  .object({
    id: z.string(),
    from: z.string(),
    from_name: z.string().nullable(),
    to: z.string(),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    received_at: timestamp,
    size: z.number().int(),
    attachments: z.array(Attachment),
    codes: z.array(z.string()).meta({ description: 'verification codes found in subject and text, most likely first' }),
    links: z.array(z.string()).meta({ description: 'http(s) links of the HTML and text, in order, de-duplicated' }),
    auth: z.object({ spf: verdict, dkim: verdict, dmarc: verdict, spam: verdict, virus: verdict }),
  })
  .meta({ id: 'Message' });

export const WaitResult = z
  .object({ message: Message.nullable(), timed_out: z.boolean() })
  .meta({ id: 'WaitResult', description: `holds up to timeout seconds (default ${DEFAULT_WAIT_SECONDS})` });

export const Deleted = z.object({ deleted: z.literal(true) }).meta({ id: 'Deleted' });
export const Domains = z.object({ domains: z.array(z.string()) }).meta({ id: 'Domains' });
export const ErrorResponse = z
  .object({ error: z.object({ code: z.number().int(), message: z.string() }) })
  .meta({ id: 'Error' });
