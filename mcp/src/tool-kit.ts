/**
 * What every tool module of the MCP server shares: results and failures as tool results, the message reading (fenced
 * and bounded) and its output schema, and the id parameters. Apart from server.ts, which registers the tool modules,
 * so that those import this and not the server (no import circle).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TempMailApiError, type Message, type MessageSummary } from 'tempmail-client';
import { Cuts, fenced, OUTPUT_LIMITS, sliceBody, UNTRUSTED_NOTICE } from './fence';

export { UNTRUSTED_NOTICE };

export function ok(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

function failure(error: unknown): CallToolResult {
  const text =
    error instanceof TempMailApiError
      ? `TempMail API error ${error.status}: ${error.message}${error.retryAfter ? ` (retry after ${error.retryAfter} s)` : ''}`
      : `TempMail request failed: ${(error as Error).message}`;
  return { content: [{ type: 'text', text }], isError: true };
}

/** Runs a tool body; any error becomes an isError result instead of a protocol error. */
export async function tool(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    return failure(error);
  }
}

/**
 * The message's text. The API's `text` is the mail's text part, or text it derived from the HTML when the mail has
 * none, so an empty one means the HTML holds no text either: no conversion here (one of a megabyte of nested tags
 * once held this server for 25 s and failed).
 */
const readableText = (m: Message) => m.text || (m.html ? '(no text: the message is HTML without text; ask for format "html" to see it)' : '');

type Format = 'text' | 'html' | 'full';
interface Reading {
  format: Format;
  offset: number;
  maxChars: number;
}
export const DEFAULT_READING: Reading = { format: 'text', offset: 0, maxChars: OUTPUT_LIMITS.bodyChars };

/**
 * One message for an agent: its text (sender-written fields and the body inside a fresh fence, then what was cut)
 * and its structured form (fields clipped as in the text, the body not repeated: `parts` says which characters the
 * text shows and where the next ones start).
 */
export function messageOutput(m: Message, reading: Reading) {
  const cuts = new Cuts();
  const from_name = m.from_name === null ? null : cuts.field('from name', m.from_name);
  const from = cuts.field('from address', m.from);
  const subject = cuts.field('subject', m.subject);
  const to = cuts.field('to', m.to);
  const envelope = m.envelope && { from: cuts.field('envelope from', m.envelope.from), to: cuts.field('envelope to', m.envelope.to) };
  const codes = cuts.items('codes', m.codes, OUTPUT_LIMITS.codes).map((c) => cuts.field('code', c));
  const links = cuts.items('links', m.links, OUTPUT_LIMITS.links).map((l) => cuts.field('link', l, OUTPUT_LIMITS.linkChars));
  // The API lists at most 100 attachments (attachment_count is the mail's number): the cut says of how many.
  const attachments = cuts.items('attachments', m.attachments, OUTPUT_LIMITS.attachments, Math.max(m.attachment_count, m.attachments.length)).map((a) => ({
    id: a.id,
    filename: a.filename === null ? null : cuts.field('attachment name', a.filename),
    content_type: cuts.field('attachment type', a.content_type),
    size: a.size,
    download_url: a.download_url,
  }));
  const bodies: ['text' | 'html', string][] =
    reading.format === 'html' ? [['html', m.html]] : reading.format === 'full' ? [['text', m.text], ['html', m.html]] : [['text', readableText(m)]];
  const perPart = Math.floor(reading.maxChars / bodies.length);
  const sliced = bodies.map(([part, body]) => sliceBody(part, body, reading.offset, perPart));
  for (const { slice } of sliced) {
    if (slice.next_offset !== undefined || slice.offset > 0) {
      cuts.add(`the ${slice.part} body shows characters ${slice.offset}–${slice.offset + slice.shown_chars} of ${slice.total_chars}`);
    }
  }
  // The API itself served only the start of a body (body_truncated: a message keeps 2 M characters, an answer fewer).
  if (m.body_truncated) cuts.add(`the API served only the start of the body (body_truncated): those ${sliced.map((s) => s.slice.total_chars).join(' + ')} characters are all get_message can page through`);
  const structured: Record<string, unknown> = {
    id: m.id,
    from,
    from_name,
    to,
    envelope,
    subject,
    received_at: m.received_at,
    size: m.size,
    attachments,
    codes,
    links,
    parts: sliced.map((s) => s.slice),
    untrusted_content_notice: UNTRUSTED_NOTICE,
  };
  if (reading.format === 'full') {
    Object.assign(structured, {
      auth: m.auth,
      content_id_attachments: m.attachments.filter((a) => a.content_id).map((a) => a.id),
      cc: cuts.items('cc', m.cc, OUTPUT_LIMITS.attachments).map((a) => cuts.field('cc', a)),
      reply_to: cuts.items('reply-to', m.reply_to, OUTPUT_LIMITS.attachments).map((a) => cuts.field('reply-to', a)),
      message_id: m.message_id === null ? null : cuts.field('message id', m.message_id),
      in_reply_to: m.in_reply_to === null ? null : cuts.field('in-reply-to', m.in_reply_to),
      headers: cuts.items('headers', m.headers, OUTPUT_LIMITS.headers).map((h) => ({ name: cuts.field('header name', h.name), value: cuts.field('header value', h.value) })),
    });
  }
  const lines = [
    `From: ${from_name ? `"${from_name}" <${from}>` : from}`,
    `To: ${to}`,
    ...(envelope ? [`Delivered to: ${envelope.to} (envelope from ${envelope.from ? `<${envelope.from}>` : '<> (a bounce)'})`] : []),
    `Subject: ${subject}`,
    codes.length ? `Codes found: ${codes.join(', ')}` : 'No verification code found.',
    ...(links.length ? [`Links: ${links.join(' ')}`] : []),
    ...(attachments.length ? [`Attachments: ${attachments.map((a) => `${a.filename ?? '(no name)'} (${a.content_type}, ${a.size} bytes, ${a.id})`).join('; ')}`] : []),
    ...sliced.flatMap((s) => [`--- ${s.slice.part} body ---`, s.text]),
  ];
  const next = sliced.find((s) => s.slice.next_offset !== undefined)?.slice.next_offset;
  const whole = m.body_truncated
    ? 'the whole mail, body included, is in get_raw_message (the REST API\'s GET /v1/inboxes/{id}/messages/{id}/raw)'
    : 'every field in full is in the REST API\'s GET /v1/inboxes/{id}/messages/{id}';
  const rest = next !== undefined ? `For more of the body call get_message with offset ${next} (and max_chars up to ${OUTPUT_LIMITS.maxBodyChars}); ${whole}.` : `${whole[0].toUpperCase()}${whole.slice(1)}.`;
  const text = [`Message ${m.id}, received ${m.received_at}, ${m.size} bytes.`, fenced(lines), cuts.note(rest)].filter(Boolean).join('\n');
  return { text, structured };
}

const sliceShape = z.object({ part: z.enum(['text', 'html']), offset: z.number(), shown_chars: z.number(), total_chars: z.number(), next_offset: z.number().optional() });

/**
 * A schema for each field of a message summary, keyed and typed by the client's MessageSummary, whose keys are the
 * server's one summary-field list (test/unit/client-types.test.ts): a field the list gains fails the type check here
 * until it has its schema, and list_messages and the message outputs show it.
 */
export const summaryShape = {
  id: z.string(),
  from: z.string(),
  from_name: z.string().nullable(),
  subject: z.string(),
  received_at: z.string(),
  size: z.number(),
  envelope: z
    .object({ from: z.string(), to: z.string() })
    .nullable()
    .describe('The SMTP envelope: to is the address the mail was delivered for, as sent (with its +tag); from is MAIL FROM'),
} satisfies { [K in keyof MessageSummary]-?: z.ZodType<MessageSummary[K]> };

export const messageShape = {
  ...summaryShape,
  to: z.string(),
  attachments: z.array(z.object({ id: z.string(), filename: z.string().nullable(), content_type: z.string(), size: z.number(), download_url: z.string().nullable() })),
  codes: z.array(z.string()),
  links: z.array(z.string()),
  parts: z.array(sliceShape).describe('Which characters of each body the text content shows (inside its fence), and next_offset when more remain'),
  untrusted_content_notice: z.string(),
  auth: z.record(z.string(), z.string()).optional(),
  content_id_attachments: z.array(z.string()).optional(),
  cc: z.array(z.string()).optional(),
  reply_to: z.array(z.string()).optional(),
  message_id: z.string().nullable().optional(),
  in_reply_to: z.string().nullable().optional(),
  headers: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
};

export const inboxId = z.string().describe('The inbox id, e.g. inbox_…, as returned by create_inbox');
export const messageId = z.string().describe('The message id, e.g. msg_…, as returned by list_messages or wait_for_message');
