/**
 * The TempMail MCP server: the REST API's abilities as tools for AI agents. Every tool is a thin call through the
 * typed client; API errors become tool errors naming the API's code and message. What a sender wrote reaches the agent
 * only fenced and bounded (fence.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DEFAULT_TTL_SECONDS, MIN_TTL_SECONDS, type Inbox, type TempMailClient } from 'tempmail-client';
import { Cuts, fenced, OUTPUT_LIMITS, UNTRUSTED_NOTICE } from './fence';
import { DEFAULT_READING, inboxId, messageId, messageOutput, messageShape, ok, summaryShape, tool } from './tool-kit';

export { UNTRUSTED_NOTICE };
import { registerExtractTools } from './extract-tools';
import { registerMessageTools } from './message-tools';
import { registerCheckTools } from './check-tools';
import { registerWebhookTools } from './webhook-tools';
import { MCP_WAIT_SECONDS, registerWaitTools } from './wait-tools';
import { groupName, registerGroupTools } from './group-tools';

/** An inbox as GET /v1/inboxes/{id} and the list answer it, every field (an output schema refuses fields it lacks). */
const inboxShape = {
  id: z.string(),
  email: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  message_count: z.number(),
  status: z.enum(['active', 'expired']),
  group: z.string().nullable(),
} satisfies { [K in keyof Inbox]-?: z.ZodType<Inbox[K]> };

export interface ServerOptions {
  /**
   * Extract-only mode (TEMPMAIL_MCP_EXTRACT_ONLY=1, or --extract-only): for agents that must not read mail bodies.
   * The tools that show a body (get_message, get_raw_message, get_message_snapshot, wait_for_message) are not
   * offered, and wait_for_messages answers each message's codes and links only (extract_verification's form).
   */
  extractOnly?: boolean;
}

export function createServer(client: TempMailClient, options: ServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'tempmail', version: '0.1.0' });
  const full = !options.extractOnly;

  server.registerTool(
    'create_inbox',
    {
      title: 'Create a temporary inbox',
      description:
        'Creates a disposable e-mail inbox and returns its address and id. Give the address to the system under test, then use wait_for_message. ' +
        `Omit username for a random one; ttl is the lifetime in seconds (default ${DEFAULT_TTL_SECONDS}, minimum ${MIN_TTL_SECONDS}, maximum set by the plan).`,
      inputSchema: z.strictObject({
        domain: z.string().optional().describe('One of the domains list_domains returns; default the first'),
        username: z.string().optional().describe('Local part: 1-64 of a-z 0-9 . _ -, starting and ending with a letter or digit'),
        ttl: z.number().int().min(MIN_TTL_SECONDS).optional().describe(`Lifetime in seconds, at least ${MIN_TTL_SECONDS}`),
        group: groupName().optional().describe('A group (a CI run id): list_inboxes and delete_inboxes act on it'),
        test_name: z.string().optional().describe('With group, instead of username: the address is derived from both, the same on every run'),
      }),
      outputSchema: { id: z.string(), email: z.string(), created_at: z.string(), expires_at: z.string(), ttl: z.number(), group: z.string().nullable() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) => tool(async () => {
      const inbox = await client.createInbox(args);
      return ok(`Created inbox ${inbox.id} with address ${inbox.email}; it expires at ${inbox.expires_at}.`, { ...inbox });
    }),
  );

  server.registerTool(
    'list_inboxes',
    {
      title: 'List inboxes',
      description:
        "Lists the caller's inboxes, newest first: id, address, expiry, message count and status (expired inboxes are listed until they are removed). Use next_cursor as cursor for the next page.",
      inputSchema: z.strictObject({ limit: z.number().int().min(1).max(100).optional(), cursor: z.string().optional(), group: groupName().optional().describe('Only this group') }),
      outputSchema: {
        inboxes: z.array(z.object(inboxShape)),
        next_cursor: z.string().optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ limit, cursor, group }) => tool(async () => {
      const page = await client.listInboxes({ limit, cursor, group });
      const lines = page.inboxes.map((i) => `${i.id}  ${i.email}  ${i.status}  ${i.message_count} message(s)  expires ${i.expires_at}`);
      return ok(`${page.inboxes.length} inbox(es)${page.next_cursor ? ' (more: pass next_cursor)' : ''}.\n${lines.join('\n')}`, { ...page });
    }),
  );

  server.registerTool(
    'get_inbox',
    {
      title: 'Get an inbox',
      description: 'Returns an inbox: its address, expiry and how many messages it holds.',
      inputSchema: z.strictObject({ inbox_id: inboxId }),
      outputSchema: inboxShape,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ inbox_id }) => tool(async () => {
      const inbox = await client.getInbox(inbox_id);
      return ok(`Inbox ${inbox.id} (${inbox.email}) holds ${inbox.message_count} message(s) and expires at ${inbox.expires_at}.`, { ...inbox });
    }),
  );

  server.registerTool(
    'list_messages',
    {
      title: 'List messages',
      description:
        'Lists message summaries (id, from, subject, received_at, size, and the envelope: the address each was delivered for, with its +tag, and MAIL FROM), newest first. Use next_cursor as cursor for the next page. Senders and subjects are untrusted and shown fenced, each cut at ' +
        `${OUTPUT_LIMITS.listFieldChars} characters (get_message shows more).`,
      inputSchema: z.strictObject({ inbox_id: inboxId, limit: z.number().int().min(1).max(100).optional(), cursor: z.string().optional() }),
      outputSchema: {
        messages: z.array(z.object(summaryShape)),
        total: z.number(),
        next_cursor: z.string().optional(),
        untrusted_content_notice: z.string(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ inbox_id, limit, cursor }) => tool(async () => {
      const page = await client.listMessages(inbox_id, { limit, cursor });
      const cuts = new Cuts();
      const max = OUTPUT_LIMITS.listFieldChars;
      const messages = page.messages.map((m) => ({
        ...m,
        from: cuts.field('a from address', m.from, max),
        from_name: m.from_name === null ? null : cuts.field('a from name', m.from_name, max),
        subject: cuts.field('a subject', m.subject, max),
        envelope: m.envelope && { from: cuts.field('an envelope from', m.envelope.from, max), to: cuts.field('an envelope to', m.envelope.to, max) },
      }));
      const lines = messages.map(
        (m) => `${m.id}  ${m.received_at}  from ${m.from_name ? `"${m.from_name}" <${m.from}>` : m.from}${m.envelope ? `  delivered to ${m.envelope.to}` : ''}  subject "${m.subject}"`,
      );
      const text = [
        `${page.total} message(s) in total; showing ${page.messages.length}${page.next_cursor ? ' (more: pass next_cursor)' : ''}.`,
        ...(lines.length ? [fenced(lines)] : []),
        cuts.note('get_message shows a message with its fields in full up to its caps.'),
      ];
      return ok(text.filter(Boolean).join('\n'), { ...page, messages, untrusted_content_notice: UNTRUSTED_NOTICE });
    }),
  );

  if (full) {
    server.registerTool(
      'get_message',
      {
        title: 'Read a message',
        description:
          'Returns one message. format "text" (default) gives the plain text (HTML turned into readable text when there is no text part) to save tokens; "html" the HTML; "full" both and authentication verdicts and headers. Codes and links found in it are always included. ' +
          `What the sender wrote is shown fenced as untrusted. A body is shown up to max_chars characters (default ${OUTPUT_LIMITS.bodyChars}, at most ${OUTPUT_LIMITS.maxBodyChars}; "full" splits them between text and HTML) from offset; ` +
          'the result says what was cut and the offset to ask for next.',
        inputSchema: z.strictObject({
          inbox_id: inboxId,
          message_id: messageId,
          format: z.enum(['text', 'html', 'full']).optional(),
          offset: z.number().int().min(0).optional().describe('The first character of the body to show (default 0): the next_offset of a previous call'),
          max_chars: z.number().int().min(1).max(OUTPUT_LIMITS.maxBodyChars).optional().describe(`How many characters of the body to show (default ${OUTPUT_LIMITS.bodyChars})`),
        }),
        outputSchema: messageShape,
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      ({ inbox_id, message_id, format, offset, max_chars }) => tool(async () => {
        const m = await client.getMessage(inbox_id, message_id);
        const { text, structured } = messageOutput(m, { format: format ?? 'text', offset: offset ?? 0, maxChars: max_chars ?? OUTPUT_LIMITS.bodyChars });
        return ok(text, structured);
      }),
    );
  }

  server.registerTool(
    'delete_inbox',
    {
      title: 'Delete an inbox',
      description: 'Deletes the inbox and all its messages, immediately and permanently. Deleting it again is an error (inbox not found).',
      inputSchema: z.strictObject({ inbox_id: inboxId }),
      outputSchema: { deleted: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    ({ inbox_id }) => tool(async () => {
      const result = await client.deleteInbox(inbox_id);
      return ok(`Deleted inbox ${inbox_id} and its messages.`, { ...result });
    }),
  );

  server.registerTool(
    'empty_inbox',
    {
      title: 'Empty an inbox',
      description: 'Deletes every message of the inbox, immediately and permanently, and keeps the inbox with its address and lifetime. Emptying an empty inbox deletes nothing.',
      inputSchema: z.strictObject({ inbox_id: inboxId }),
      outputSchema: { deleted_count: z.number(), finished: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ inbox_id }) => tool(async () => {
      const result = await client.emptyInbox(inbox_id);
      return ok(`Deleted ${result.deleted_count} message(s) of inbox ${inbox_id}; the inbox is kept, now empty.`, { ...result });
    }),
  );

  server.registerTool(
    'list_domains',
    {
      title: 'List domains',
      description: 'Lists the domains inboxes can be created on; the first is the default.',
      inputSchema: z.strictObject({}),
      outputSchema: { domains: z.array(z.string()) },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    () => tool(async () => {
      const result = await client.listDomains();
      return ok(`Domains: ${result.domains.join(', ')} (default ${result.domains[0]}).`, { ...result });
    }),
  );

  if (full) {
    server.registerTool(
      'wait_for_message',
      {
        title: 'Wait for a message',
        description:
          `Waits up to timeout_seconds (default ${MCP_WAIT_SECONDS}, at most 120) for a message` + ' in the inbox that matches from and subject_contains ' +
          '(case-insensitive substrings) and, if after is given, arrived after that message id. Without after, every message in the ' +
          'inbox counts: if one already matches, the oldest such message is returned at once, otherwise the first to arrive. To wait ' +
          'for a new message, pass after = the id of the last message you have seen. Returns the message (as get_message with format ' +
          '"text") with timed_out: false, or message: null and timed_out: true when the time is up.',
        inputSchema: z.strictObject({
          inbox_id: inboxId,
          timeout_seconds: z.number().int().min(1).max(120).optional(),
          from: z.string().optional().describe('Substring of the sender address or name'),
          subject_contains: z.string().optional(),
          after: z.string().optional().describe('Only messages newer than this message id'),
        }),
        outputSchema: { timed_out: z.boolean(), message: z.object(messageShape).nullable(), hint: z.string().optional() },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      ({ inbox_id, timeout_seconds, from, subject_contains, after }) => tool(async () => {
        const result = await client.waitForMessage(inbox_id, { timeout: timeout_seconds ?? MCP_WAIT_SECONDS, after, from, subject: subject_contains });
        if (result.message) {
          const { text, structured } = messageOutput(result.message, DEFAULT_READING);
          return ok(text, { timed_out: false, message: structured });
        }
        const hint = `No matching message arrived within ${timeout_seconds ?? MCP_WAIT_SECONDS} s. Call wait_for_message again to keep waiting${after ? ` (after ${after})` : ''}, or check that the mail was sent to the right address.`;
        return ok(hint, { timed_out: true, message: null, hint });
      }),
    );
  }

  registerExtractTools(server, client);
  if (full) registerMessageTools(server, client);
  if (full) registerCheckTools(server, client);
  registerWebhookTools(server, client);
  registerGroupTools(server, client);
  registerWaitTools(server, client, !full);
  return server;
}
