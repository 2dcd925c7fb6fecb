/**
 * check_message over stdio with the MCP SDK's own client (issue 25), against the shared stack with mail over real
 * SMTP: every section the REST answer has, by name, with its findings; whatever the sender wrote (here a Message-ID
 * made of markup, a fence-closing line and an instruction, quoted back by the sender check) only inside the fence;
 * findings capped per section with the offset of the rest (a mail of 60 DKIM signatures); API errors as tool errors.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { flawedNewsletter, HOSTILE_MESSAGE_ID, sendNewsletter } from '../support/check-mail';
import { http } from '../support/http';
import { buildMcp, call, connect, fenceOf } from '../support/mcp';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);
const CAP = 40; // OUTPUT_LIMITS.findings (mcp/src/fence.ts), as docs/MCP.md states it
const DETAIL_CAP = 300; // OUTPUT_LIMITS.fieldChars
let client: Client;

interface Section {
  status: string;
  reason: string | null;
  findings: { id: string; result: string; detail: string }[];
}
const restChecks = async (inboxId: string, messageId: string) =>
  (await api('GET', `/v1/inboxes/${inboxId}/messages/${messageId}/checks`)).body as unknown as { sections: Record<string, Section> };

async function newsletter(raw: (to: string) => string = flawedNewsletter) {
  const { id, email } = (await call(client, 'create_inbox', { ttl: 600 })).structuredContent as { id: string; email: string };
  const list = async () => ((await call(client, 'list_messages', { inbox_id: id })).structuredContent?.messages ?? []) as { id: string }[];
  return { inbox_id: id, message_id: await sendNewsletter(stack.smtpPort, email, list, raw) };
}

beforeAll(async () => {
  buildMcp();
  client = await connect(stack.keys.enterprise);
}, 120_000);
afterAll(() => client?.close());

it('check_message gives every section of GET …/checks with its status and findings; what the sender wrote stays in the fence', async () => {
  const ids = await newsletter();
  const result = await call(client, 'check_message', ids);
  expect(result.isError).toBeFalsy();
  const rest = await restChecks(ids.inbox_id, ids.message_id);
  const sections = result.structuredContent!.sections as Record<string, Section & { findings_total: number }>;
  expect(Object.keys(sections).sort()).toEqual(Object.keys(rest.sections).sort());
  for (const [name, section] of Object.entries(rest.sections)) {
    expect({ name, status: sections[name].status, total: sections[name].findings_total }).toEqual({ name, status: section.status, total: section.findings.length });
  }
  // Each section's findings as the API gives them, a detail over 300 characters clipped (one note per section).
  for (const [name, section] of Object.entries(rest.sections)) {
    const clip = (detail: string) => (detail.length > DETAIL_CAP ? `${detail.slice(0, DETAIL_CAP)}…` : detail);
    expect(sections[name].findings).toEqual(section.findings.slice(0, CAP).map((f) => ({ ...f, detail: clip(f.detail) })));
    const clipped = section.findings.slice(0, CAP).filter((f) => f.detail.length > DETAIL_CAP).length;
    const note = `${name}: ${clipped} finding detail(s) cut at ${DETAIL_CAP} characters`;
    if (clipped) expect(result.content[0].text).toContain(note);
    else expect(result.content[0].text).not.toContain(`${name}: ${clipped} finding detail(s)`);
  }
  const messageIdFinding = sections.sender.findings.find((f) => f.id === 'message-id')!;
  expect(messageIdFinding).toMatchObject({ result: 'warn', detail: expect.stringContaining(HOSTILE_MESSAGE_ID) });

  const text = result.content[0].text;
  const { before, inside, after } = fenceOf(text);
  // Outside: only the server's words, each section named with its status and counts.
  expect(before).toMatch(new RegExp(`^Checks of message ${ids.message_id}, computed `));
  for (const [name, section] of Object.entries(rest.sections)) expect(before).toContain(`${name} ${section.status} (`);
  expect(before).toContain('sender complete (');
  for (const outside of [before, after]) {
    expect(outside).not.toContain('onerror');
    expect(outside).not.toContain('Assistant');
    expect(outside).not.toContain('esp.example.net');
  }
  // Inside: each finding, the hostile Message-ID as data (its would-be closing line does not close the fence).
  expect(inside).toContain('[sender] complete');
  expect(inside).toContain(`  WARN message-id: Message-ID is not of the form <left@right>: ${HOSTILE_MESSAGE_ID}`);
  expect(inside).toContain('  FAIL date: ');
  expect(inside).toMatch(/ {2}FAIL dkim-aligned: .*esp\.example\.net/);
  expect(inside).toMatch(/\[authentication\] (complete|partial)/);
  expect(result.structuredContent!.untrusted_content_notice).toMatch(/untrusted/);
}, 90_000);

it(`shows at most ${CAP} findings of a section, says so, and gives the rest from the offset it names`, async () => {
  const signatures = Array.from({ length: 60 }, (_, i) => `DKIM-Signature: v=1; a=rsa-sha256; d=d${i}.example; s=s; c=relaxed/relaxed; h=from; bh=abc=; b=abc=`);
  const ids = await newsletter((to) => flawedNewsletter(to).replace('MIME-Version: 1.0', `${signatures.join('\r\n')}\r\nMIME-Version: 1.0`));
  const all = (await restChecks(ids.inbox_id, ids.message_id)).sections.authentication.findings;
  const total = all.length;
  expect(all.filter((f) => f.id === 'dkim')).toHaveLength(61); // the newsletter's own signature and these 60

  const first = await call(client, 'check_message', { ...ids, section: 'authentication' });
  expect(Object.keys(first.structuredContent!.sections)).toEqual(['authentication']);
  const page = first.structuredContent!.sections.authentication;
  expect(page).toMatchObject({ findings_total: total, offset: 0, next_offset: CAP });
  expect(page.findings).toHaveLength(CAP);
  const { inside, after } = fenceOf(first.content[0].text);
  expect(inside.split('\n').filter((line: string) => line.startsWith('  '))).toHaveLength(CAP);
  expect(after).toContain(`Cut: authentication: findings 0–${CAP} of ${total} shown (next: section "authentication", offset ${CAP})`);

  const rest = (await call(client, 'check_message', { ...ids, section: 'authentication', offset: CAP })).structuredContent!.sections.authentication;
  expect(rest).toMatchObject({ findings_total: total, offset: CAP });
  expect(rest.next_offset).toBeUndefined();
  expect(rest.findings).toHaveLength(total - CAP);
  // The two pages are the section's findings, in order (each detail under the 300-character field cap).
  expect([...page.findings, ...rest.findings]).toEqual(all);
  // The sender's dkim-aligned detail lists the 61 d= domains: clipped at 300 characters, and said.
  const whole = await call(client, 'check_message', ids);
  const aligned = whole.structuredContent!.sections.sender.findings.find((f: { id: string }) => f.id === 'dkim-aligned');
  expect(aligned.detail).toHaveLength(DETAIL_CAP + 1);
  expect(aligned.detail.endsWith('…')).toBe(true);
  expect(fenceOf(whole.content[0].text).after).toContain(`sender: 1 finding detail(s) cut at ${DETAIL_CAP} characters`);
}, 90_000);

it('answers API errors and an unknown section as tool errors', async () => {
  const ids = await newsletter();
  const missing = await call(client, 'check_message', { inbox_id: ids.inbox_id, message_id: 'msg_00000000000000000000000000' });
  expect(missing.isError).toBe(true);
  expect(missing.content[0].text).toMatch(/^TempMail API error 404: /);
  const unknown = await call(client, 'check_message', { ...ids, section: 'nope' });
  expect(unknown.isError).toBe(true);
  expect(unknown.content[0].text).toMatch(/No section named "nope" .* its sections are .*sender/);
  const misspelt = await call(client, 'check_message', { ...ids, link: true });
  expect(misspelt.isError).toBe(true);
}, 90_000);
