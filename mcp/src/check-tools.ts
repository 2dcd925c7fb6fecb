/**
 * check_message (issue 25): GET …/checks for an agent: is the mail any good, section by section (sender,
 * authentication, and whatever sections the server adds: the sections are read by name, never from a list here).
 * A finding's detail and a section's reason quote the mail (a Message-ID, a link, a DKIM domain, a DNS answer about
 * the sender's domain), so every finding and reason goes in the fence, escaped and clipped; outside it are only the
 * server's words: section names, statuses and the count of each result. Findings are bounded per section (a mail of
 * 10,000 links must not fill an agent's context), with the offset of the rest.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CheckSection, MessageChecks, TempMailClient } from 'tempmail-client';
import { Cuts, fenced, oneLine, OUTPUT_LIMITS, UNTRUSTED_NOTICE } from './fence';
import { inboxId, messageId, ok, tool } from './tool-kit';

const findingShape = z.object({ id: z.string(), result: z.string(), detail: z.string() });
const sectionShape = z.object({
  status: z.enum(['complete', 'partial', 'skipped']),
  reason: z.string().nullable(),
  findings: z.array(findingShape).describe('The findings from offset on, at most the per-section cap (clipped as in the text)'),
  findings_total: z.number(),
  offset: z.number(),
  next_offset: z.number().optional().describe('Where the next findings of this section start, when more remain'),
});

/** "1 fail, 2 warn, 3 pass": a section's results counted (server words only: ids and details stay in the fence). */
const tally = (section: CheckSection) => {
  const counts = new Map<string, number>();
  for (const f of section.findings) counts.set(f.result, (counts.get(f.result) ?? 0) + 1);
  return [...counts].map(([result, n]) => `${n} ${result}`).join(', ') || 'no findings';
};

/** The checks for an agent: the text (a summary, then each section's findings fenced) and its structured form. */
export function checksOutput(checks: MessageChecks, only: string | undefined, offset: number) {
  const cuts = new Cuts();
  const entries = Object.entries(checks.sections).filter(([name]) => only === undefined || name === only);
  const lines: string[] = [];
  const sections: Record<string, z.infer<typeof sectionShape>> = {};
  for (const [name, section] of entries) {
    const start = Math.min(offset, section.findings.length);
    const shown = section.findings.slice(start, start + OUTPUT_LIMITS.findings);
    const end = start + shown.length;
    if (start > 0 || end < section.findings.length) {
      cuts.add(`${name}: findings ${start}–${end} of ${section.findings.length} shown${end < section.findings.length ? ` (next: section "${name}", offset ${end})` : ''}`);
    }
    const reason = section.reason === null ? null : cuts.field(`${name} reason`, section.reason, OUTPUT_LIMITS.linkChars);
    // One note per section for its clipped details (an html section can clip every one of them), not one per finding.
    const max = OUTPUT_LIMITS.fieldChars;
    const clipped = shown.filter((f) => f.detail.length > max).length;
    if (clipped) cuts.add(`${name}: ${clipped} finding detail(s) cut at ${max} characters`);
    const findings = shown.map((f) => ({ id: cuts.field('finding id', f.id), result: f.result, detail: f.detail.length > max ? `${oneLine(f.detail.slice(0, max))}…` : oneLine(f.detail) }));
    sections[name] = { status: section.status, reason, findings, findings_total: section.findings.length, offset: start, ...(end < section.findings.length ? { next_offset: end } : {}) };
    lines.push(`[${name}] ${section.status}${reason === null ? '' : `: ${reason}`}`, ...findings.map((f) => `  ${f.result.toUpperCase()} ${f.id}: ${f.detail}`));
  }
  const summary = entries.map(([name, section]) => `${name} ${section.status} (${tally(section)})`).join('; ');
  const text = [
    `Checks of message ${checks.message_id}, computed ${checks.checked_at}: ${summary}.`,
    fenced(lines),
    cuts.note("Call check_message with section and offset for more; the REST API's GET /v1/inboxes/{id}/messages/{id}/checks has every finding in full."),
  ];
  return { text: text.filter(Boolean).join('\n'), structured: { message_id: checks.message_id, checked_at: checks.checked_at, sections, untrusted_content_notice: UNTRUSTED_NOTICE } };
}

export function registerCheckTools(server: McpServer, client: TempMailClient): void {
  server.registerTool(
    'check_message',
    {
      title: 'Check a message',
      description:
        'Checks whether a received mail is any good, as GET …/checks does (docs/API.md, "Checking a message"): sections such as sender (List-Unsubscribe and ' +
        'one-click unsubscribe, Message-ID, Date, Gmail clipping, DKIM aligned with From) and authentication (SPF, DKIM, DMARC, ARC), each complete, partial or ' +
        'skipped with a reason, and its findings (id, result: pass, warn, fail, info or an RFC 8601 result, and a detail). links: true adds the links section, ' +
        'which requests every link and image of the mail. Findings quote the mail, so they are shown fenced as untrusted; at most ' +
        `${OUTPUT_LIMITS.findings} per section from offset (with section, one section only), with the offset of the rest.`,
      inputSchema: z.strictObject({
        inbox_id: inboxId,
        message_id: messageId,
        links: z.boolean().optional().describe('Also check each link and image (requests to third-party URLs); default false'),
        section: z.string().optional().describe('Only this section (e.g. sender, authentication)'),
        offset: z.number().int().min(0).optional().describe('The first finding of each section to show (default 0): the next_offset of a previous call'),
      }),
      outputSchema: { message_id: z.string(), checked_at: z.string(), sections: z.record(z.string(), sectionShape), untrusted_content_notice: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ inbox_id, message_id, links, section, offset }) => tool(async (): Promise<CallToolResult> => {
      const checks = await client.checks(inbox_id, message_id, { links });
      if (section !== undefined && !Object.hasOwn(checks.sections, section)) {
        const names = Object.keys(checks.sections).join(', ');
        return { content: [{ type: 'text', text: `No section named ${JSON.stringify(section.slice(0, 100))} in the checks of message ${message_id}: its sections are ${names}.` }], isError: true };
      }
      const { text, structured } = checksOutput(checks, section, offset ?? 0);
      return ok(text, structured);
    }),
  );
}
