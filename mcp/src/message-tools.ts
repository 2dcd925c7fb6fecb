/**
 * Message tools beyond reading one (issue 24): its snapshot form, normalised for snapshot tests, and its raw MIME.
 * What the sender wrote reaches the agent fenced and bounded (fence.ts), as get_message's body does: a slice from
 * `offset`, with where the next one starts. Neither is offered in extract-only mode (they show bodies).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { TempMailClient } from 'tempmail-client';
import { Cuts, fenced, OUTPUT_LIMITS, sliceBody, UNTRUSTED_NOTICE } from './fence';
import { inboxId, messageId, ok, tool } from './tool-kit';

const sliceShape = z.object({ part: z.enum(['text', 'html']), offset: z.number(), shown_chars: z.number(), total_chars: z.number(), next_offset: z.number().optional() });

export function registerMessageTools(server: McpServer, client: TempMailClient): void {
  server.registerTool(
    'get_raw_message',
    {
      title: 'Read the raw mail (MIME)',
      description:
        'Returns the message exactly as received over SMTP (headers and MIME parts, as text), fenced: max_chars characters ' +
        `(default ${OUTPUT_LIMITS.bodyChars}, at most ${OUTPUT_LIMITS.maxBodyChars}) from offset. The result says how much the mail holds, what was cut ` +
        'and the offset to ask for next. For the decoded bodies use get_message; the whole raw mail is a download from the REST API (GET …/raw).',
      inputSchema: z.strictObject({
        inbox_id: inboxId,
        message_id: messageId,
        offset: z.number().int().min(0).optional().describe('The first character to show (default 0): the next_offset of a previous call'),
        max_chars: z.number().int().min(1).max(OUTPUT_LIMITS.maxBodyChars).optional(),
      }),
      outputSchema: { id: z.string(), size_bytes: z.number(), part: z.literal('raw'), offset: z.number(), shown_chars: z.number(), total_chars: z.number(), next_offset: z.number().optional(), untrusted_content_notice: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ inbox_id, message_id, offset, max_chars }) => tool(async () => {
      const bytes = await client.getRawMessage(inbox_id, message_id);
      // MIME is 7-bit or 8-bit text; bytes that are not UTF-8 show as U+FFFD (the download has them as sent).
      const raw = new TextDecoder('utf-8').decode(bytes);
      const { text: shown, slice } = sliceBody('text', raw, offset ?? 0, max_chars ?? OUTPUT_LIMITS.bodyChars);
      const cuts = new Cuts();
      if (slice.next_offset !== undefined || slice.offset > 0) cuts.add(`characters ${slice.offset}–${slice.offset + slice.shown_chars} of ${slice.total_chars} shown`);
      const rest =
        slice.next_offset !== undefined
          ? `For more call get_raw_message with offset ${slice.next_offset} (max_chars up to ${OUTPUT_LIMITS.maxBodyChars}); the whole mail is the REST API's GET /v1/inboxes/{id}/messages/{id}/raw (a download).`
          : "The whole mail is the REST API's GET /v1/inboxes/{id}/messages/{id}/raw (a download).";
      const text = [`Raw mail of message ${message_id}: ${bytes.length} bytes.`, fenced([shown]), cuts.note(rest)];
      return ok(text.filter(Boolean).join('\n'), { id: message_id, size_bytes: bytes.length, ...slice, part: 'raw', untrusted_content_notice: UNTRUSTED_NOTICE });
    }),
  );

  server.registerTool(
    'get_message_snapshot',
    {
      title: 'Read a message normalised for snapshot tests',
      description:
        'Returns the subject, text and HTML of a message with what changes between runs replaced by stable placeholders: verification codes (<CODE-1>), ' +
        'dates and times, message ids, the inbox address, tokens and signatures in URLs, MIME boundaries; tracking parameters (utm_*, …) dropped. ' +
        'Use it to write or check a snapshot test. Text and HTML are shown fenced, half of max_chars each from offset ' +
        `(default ${OUTPUT_LIMITS.bodyChars}, at most ${OUTPUT_LIMITS.maxBodyChars}); the result says what was cut and the offset to ask for next.`,
      inputSchema: z.strictObject({
        inbox_id: inboxId,
        message_id: messageId,
        offset: z.number().int().min(0).optional().describe('The first character of each body to show (default 0): the next_offset of a previous call'),
        max_chars: z.number().int().min(2).max(OUTPUT_LIMITS.maxBodyChars).optional(),
      }),
      outputSchema: { id: z.string(), subject: z.string(), truncated: z.boolean(), parts: z.array(sliceShape), untrusted_content_notice: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ inbox_id, message_id, offset, max_chars }) => tool(async () => {
      const snapshot = await client.getMessageSnapshot(inbox_id, message_id);
      const cuts = new Cuts();
      const subject = cuts.field('subject', snapshot.subject);
      const perPart = Math.floor((max_chars ?? OUTPUT_LIMITS.bodyChars) / 2);
      const sliced = (['text', 'html'] as const).map((part) => sliceBody(part, snapshot[part], offset ?? 0, perPart));
      for (const { slice } of sliced) {
        if (slice.next_offset !== undefined || slice.offset > 0) cuts.add(`the ${slice.part} shows characters ${slice.offset}–${slice.offset + slice.shown_chars} of ${slice.total_chars}`);
      }
      if (snapshot.truncated) cuts.add('the API cut a body to its share of the answer');
      const next = sliced.find((s) => s.slice.next_offset !== undefined)?.slice.next_offset;
      const text = [
        `Snapshot of message ${snapshot.id}.`,
        fenced([`Subject: ${subject}`, ...sliced.flatMap((s) => [`--- ${s.slice.part} ---`, s.text])]),
        cuts.note(next !== undefined ? `For more call get_message_snapshot with offset ${next}; the REST API's GET …/snapshot has it whole.` : "The REST API's GET …/snapshot has it whole."),
      ];
      return ok(text.filter(Boolean).join('\n'), { id: snapshot.id, subject, truncated: snapshot.truncated, parts: sliced.map((s) => s.slice), untrusted_content_notice: UNTRUSTED_NOTICE });
    }),
  );
}
