/**
 * The MCP tools of waiting like a test author (issue 24): wait for messages matching conditions (a count of them),
 * assert that none arrives, and delete one message. Each is a thin call through the typed client's waitFor /
 * expectNoMessage / deleteMessage; near misses and a matching message's subject are sender-written, so they reach
 * the agent fenced, as every other piece of mail does (fence.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TempMailApiError, type NearMiss, type TempMailClient } from 'tempmail-client';
import { Cuts, fenced, OUTPUT_LIMITS, UNTRUSTED_NOTICE } from './fence';
import { extractOutput, extractShape } from './extract-tools';
import { DEFAULT_READING, inboxId, messageOutput, messageShape, ok, tool } from './tool-kit';

/**
 * A wait tool's default: under the 60 s an MCP client gives a request by default (the TypeScript SDK's
 * DEFAULT_REQUEST_TIMEOUT_MSEC), so that a wait that finds nothing answers `timed_out` rather than the client's own
 * timeout error. Longer waits are allowed; they need a client whose request timeout is longer (docs/MCP.md).
 */
export const MCP_WAIT_SECONDS = 50;

const condition = z.strictObject({
  field: z
    .string()
    .describe('subject, from, to (To header, envelope recipient or inbox address), text, html, attachment_name, or header:<Name> (e.g. header:X-Campaign)'),
  op: z.enum(['contains', 'equals', 'regex']).describe('contains and equals ignore case; regex is RE2 syntax, case-sensitive unless it starts with (?i)'),
  value: z.string(),
});

/** Built when the tools are registered: server.ts (which imports this module) defines inboxId after its imports. */
const waitInputOf = () => ({
  inbox_id: inboxId,
  conditions: z.array(condition).max(20).optional().describe('None: every message matches'),
  match: z.enum(['all', 'any']).optional().describe('all (default): every condition holds; any: one does'),
  timeout_seconds: z.number().int().min(1).max(300).optional().describe(`How long to wait in all (default ${MCP_WAIT_SECONDS})`),
  after: z.string().optional().describe('Only messages newer than this message id; without it every message in the inbox counts'),
});

/**
 * Near misses for an agent: ids and the conditions failed, with the sender-written subject and values fenced. In
 * extract-only mode without them: a value seen may be a body's (a text condition).
 */
function nearMissLines(misses: NearMiss[], cuts: Cuts, extractOnly: boolean): string[] {
  return misses.map((m) => {
    const seen = (f: NearMiss['failed'][number]) => (extractOnly ? '' : ` (seen: ${f.seen === null ? 'nothing' : `"${cuts.field('seen value', f.seen)}"`})`);
    const failed = m.failed.map((f) => `${f.field} ${f.op} "${cuts.field('condition value', f.value)}"${seen(f)}`);
    return `${m.id}${extractOnly ? '' : `  subject "${cuts.field('a subject', m.subject, OUTPUT_LIMITS.listFieldChars)}"`}  failed: ${failed.join('; ')}`;
  });
}

/** `extractOnly`: wait_for_messages answers codes and links, never a body (ServerOptions in server.ts). */
export function registerWaitTools(server: McpServer, client: TempMailClient, extractOnly = false): void {
  const waitInput = waitInputOf();
  server.registerTool(
    'wait_for_messages',
    {
      title: 'Wait for messages matching conditions',
      description:
        `Waits until count messages (default 1) in the inbox match the conditions, and returns them (${extractOnly ? 'each as extract_verification does: codes and links only, never a body' : 'each as get_message with format "text"'}). ` +
        'Conditions test subject, from, to, text, html, attachment_name or header:<Name> with contains, equals or regex; match all (default) or any. ' +
        'exact: more than count matching is an error naming them. When the time is up it returns timed_out: true with near_misses: the latest messages ' +
        `that did not match, each with the conditions it failed${extractOnly ? '' : ' and the value it held'}.`,
      inputSchema: z.strictObject({
        ...waitInput,
        count: z.number().int().min(1).max(10).optional().describe('How many matching messages to wait for (default 1)'),
        exact: z.boolean().optional().describe('Fail if more than count messages match'),
      }),
      outputSchema: {
        timed_out: z.boolean(),
        messages: extractOnly ? z.array(z.object(extractShape)) : z.array(z.object(messageShape)),
        near_misses: z
          .array(z.object({ id: z.string(), subject: z.string().optional(), failed: z.array(z.object({ field: z.string(), op: z.string(), value: z.string(), seen: z.string().nullable().optional() })) }))
          .optional(),
        untrusted_content_notice: z.string(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ inbox_id, conditions, match, count, exact, after, timeout_seconds }) => tool(async () => {
      try {
        const { messages } = await client.waitFor(inbox_id, { conditions, match, count, exact, after, timeout: timeout_seconds ?? MCP_WAIT_SECONDS });
        if (extractOnly) {
          const found = messages.map((m) => extractOutput(m, undefined));
          const texts = found.map((f) => [`Message ${f.structured.message_id}:`, fenced(f.lines), f.cuts.note('')].filter(Boolean).join('\n'));
          return ok([`${messages.length} matching message(s).`, ...texts].join('\n'), { timed_out: false, messages: found.map((f) => f.structured), untrusted_content_notice: UNTRUSTED_NOTICE });
        }
        const outputs = messages.map((m) => messageOutput(m, { ...DEFAULT_READING, maxChars: Math.floor(DEFAULT_READING.maxChars / messages.length) }));
        return ok(
          [`${messages.length} matching message(s).`, ...outputs.map((o) => o.text)].join('\n'),
          { timed_out: false, messages: outputs.map((o) => o.structured), untrusted_content_notice: UNTRUSTED_NOTICE },
        );
      } catch (error) {
        if (!(error instanceof TempMailApiError && error.status === 408)) throw error;
        const cuts = new Cuts();
        const misses = (error.details.near_misses ?? []) as NearMiss[];
        const lines = nearMissLines(misses, cuts, extractOnly);
        const near_misses = misses.map((m) =>
          extractOnly
            ? { id: m.id, failed: m.failed.map(({ field, op, value }) => ({ field, op, value: cuts.field('condition value', value) })) }
            : {
                id: m.id,
                subject: cuts.field('a subject', m.subject, OUTPUT_LIMITS.listFieldChars),
                failed: m.failed.map((f) => ({ ...f, seen: f.seen === null ? null : cuts.field('seen value', f.seen) })),
              },
        );
        const text = [`Timed out: ${error.message}.`, ...(lines.length ? ['Near misses (newest first):', fenced(lines)] : []), cuts.note('')].filter(Boolean).join('\n');
        return ok(text, { timed_out: true, messages: [], near_misses, untrusted_content_notice: UNTRUSTED_NOTICE });
      }
    }),
  );

  server.registerTool(
    'expect_no_message',
    {
      title: 'Assert that no matching message arrives',
      description:
        'Waits timeout_seconds (default 30) and reports whether any message in the inbox matched the conditions meanwhile ("nothing was sent"). ' +
        'It returns as soon as one matches, naming it. Conditions as in wait_for_messages.',
      inputSchema: z.strictObject(waitInput),
      outputSchema: { matched: z.boolean(), message_id: z.string().nullable() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ inbox_id, conditions, match, after, timeout_seconds }) => tool(async () => {
      const seconds = timeout_seconds ?? 30;
      try {
        await client.expectNoMessage(inbox_id, { conditions, match, after, timeout: seconds });
        return ok(`No matching message arrived within ${seconds} s.`, { matched: false, message_id: null });
      } catch (error) {
        if (!(error instanceof TempMailApiError && error.status === 409)) throw error;
        const id = String(error.details.message_id);
        return ok(`A matching message arrived: ${id} (${extractOnly ? 'extract_verification' : 'get_message'} reads it).`, { matched: true, message_id: id });
      }
    }),
  );

  server.registerTool(
    'delete_message',
    {
      title: 'Delete a message',
      description: 'Deletes one message of the inbox and its attachments, immediately and permanently. Deleting it again is an error (message not found).',
      inputSchema: z.strictObject({ inbox_id: inboxId, message_id: z.string().describe('The message id, msg_…') }),
      outputSchema: { deleted: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    ({ inbox_id, message_id }) => tool(async () => {
      const result = await client.deleteMessage(inbox_id, message_id);
      return ok(`Deleted message ${message_id} of inbox ${inbox_id}.`, { ...result });
    }),
  );
}
