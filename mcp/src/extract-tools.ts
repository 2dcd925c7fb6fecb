/**
 * extract_verification: a message's codes and links with where each was found (subject, text, HTML) and each link's
 * text, and the one code, or the one link whose text matches, when exactly one candidate fits: the typed client's
 * code() and link() rules (an agent that takes "the first code" is wrong the day a mail carries two). No body is
 * shown. Codes, links and their texts are sender-written: they reach the agent fenced and bounded (fence.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { code, link, TempMailMatchError, type Message, type TempMailClient } from 'tempmail-client';
import { Cuts, fenced, OUTPUT_LIMITS, UNTRUSTED_NOTICE } from './fence';
import { inboxId, messageId, ok, tool } from './tool-kit';

/** The one value `pick` chooses, or null with why (the reason lists sender-written candidates: it goes in the fence). */
function picked(pick: () => string): { value: string | null; why: string | null } {
  try {
    return { value: pick(), why: null };
  } catch (error) {
    if (error instanceof TempMailMatchError) return { value: null, why: error.message };
    throw error;
  }
}

/** The codes and links of a message for an agent: bounded, every sender-written value escaped; the text lines go in a fence. */
export function extractOutput(m: Message, linkText: string | undefined) {
  const cuts = new Cuts();
  const subject = cuts.field('subject', m.subject);
  const codes = cuts.items('code candidates', m.verification.codes, OUTPUT_LIMITS.codes * 3).map((c) => ({ value: cuts.field('code', c.value), source: c.source }));
  const links = cuts.items('link candidates', m.verification.links, OUTPUT_LIMITS.links, m.verification.links.length).map((l) => ({
    url: cuts.field('link', l.url, OUTPUT_LIMITS.linkChars),
    text: cuts.field('link text', l.text),
    source: l.source,
  }));
  if (m.verification.links_truncated) cuts.add('the message lists only part of its links');
  const oneCode = picked(() => code(m));
  const oneLink = linkText === undefined ? null : picked(() => link(m, { text: linkText }));
  const cutValue = (value: string | null, max: number = OUTPUT_LIMITS.fieldChars) => (value === null ? null : cuts.field('picked value', value, max));
  const reason = (why: string | null) => (why === null ? [] : why.split('\n').slice(0, OUTPUT_LIMITS.links + 2).map((line) => cuts.field('reason', line, OUTPUT_LIMITS.linkChars)));
  const lines = [
    `Subject: ${subject}`,
    oneCode.value !== null ? `The code: ${cutValue(oneCode.value)}` : 'No single code:',
    ...reason(oneCode.why),
    ...(oneLink === null ? [] : oneLink.value !== null ? [`The link whose text contains "${cuts.field('link_text', linkText!)}": ${cutValue(oneLink.value, OUTPUT_LIMITS.linkChars)}`] : ['No single link:', ...reason(oneLink.why)]),
    codes.length ? `Code candidates: ${codes.map((c) => `${c.value} (${c.source})`).join(', ')}` : 'No code candidates.',
    ...(links.length ? ['Links:', ...links.map((l) => `  ${l.url}  (${l.source}${l.text ? `: "${l.text}"` : ''})`)] : ['No links.']),
  ];
  const structured = {
    message_id: m.id,
    subject,
    code: cutValue(oneCode.value),
    ...(oneLink === null ? {} : { link: cutValue(oneLink.value, OUTPUT_LIMITS.linkChars) }),
    codes: cuts.items('codes', m.codes, OUTPUT_LIMITS.codes).map((c) => cuts.field('code', c)),
    links: cuts.items('links', m.links, OUTPUT_LIMITS.links).map((l) => cuts.field('link', l, OUTPUT_LIMITS.linkChars)),
    verification: { codes, links, links_truncated: m.verification.links_truncated },
    untrusted_content_notice: UNTRUSTED_NOTICE,
  };
  return { lines, cuts, structured };
}

export const extractShape = {
  message_id: z.string(),
  subject: z.string(),
  code: z.string().nullable().describe('The one code, when exactly one was found (a code found in two places is one); else null and the text says why'),
  link: z.string().nullable().optional().describe('With link_text: the one link whose text contains it; else null and the text lists the candidates'),
  codes: z.array(z.string()).describe('The codes found in subject and text, most likely first (the message\'s codes)'),
  links: z.array(z.string()).describe("The message's links, de-duplicated"),
  verification: z.object({
    codes: z.array(z.object({ value: z.string(), source: z.enum(['subject', 'text', 'html']) })),
    links: z.array(z.object({ url: z.string(), text: z.string(), source: z.enum(['html', 'text']) })),
    links_truncated: z.boolean(),
  }),
  untrusted_content_notice: z.string(),
};

export function registerExtractTools(server: McpServer, client: TempMailClient): void {
  server.registerTool(
    'extract_verification',
    {
      title: 'Extract verification codes and links',
      description:
        'Returns the codes and links found in a message, without its body: each with where it was found (subject, text or html) and each link with its text ' +
        '(the anchor text in HTML). code is the one code when exactly one was found; with link_text, link is the one link whose text contains it. ' +
        'When there is none or more than one, the answer lists the candidates instead of guessing.',
      inputSchema: z.strictObject({
        inbox_id: inboxId,
        message_id: messageId,
        link_text: z.string().optional().describe('Pick the one link whose text contains this (any case), e.g. "Verify email"'),
      }),
      outputSchema: extractShape,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ inbox_id, message_id, link_text }) => tool(async () => {
      const m = await client.getMessage(inbox_id, message_id);
      const { lines, cuts, structured } = extractOutput(m, link_text);
      const text = [`Codes and links found in message ${m.id}.`, fenced(lines), cuts.note("The REST API's GET /v1/inboxes/{id}/messages/{id} has every code and link (verification).")];
      return ok(text.filter(Boolean).join('\n'), structured);
    }),
  );
}
