/**
 * GET …/messages/{id}/checks (issue 25) over real SMTP and HTTP, on each form: a sample mail with a known flaw in
 * each section answers 200 with findings that name it. The stack's checks DNS is a loopback port where nothing
 * listens (test/support/stack.ts), so the authentication section shows the temperror an unreachable resolver gives,
 * with its reason, and the request still answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { blobKeys } from '../../lambdas/core/ports';
import { http as apiClient, expectError } from '../support/http';
import { eventually, sendRaw } from '../support/mail';
import { sharedStack } from '../support/shared';
import { storesFor } from '../support/store';

const stack = sharedStack();
const api = apiClient(stack.apiUrl, stack.keys.enterprise);
const stranger = apiClient(stack.apiUrl, stack.keys.startup);

/** The shop's site: /sale redirects to the current sale, /logo.png is there, anything else is 404. */
let site: http.Server;
let siteUrl: string;
const asked: string[] = [];
beforeAll(async () => {
  site = http.createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    if (req.url === '/sale') return res.writeHead(302, { Location: '/sale-2026' }).end();
    res.writeHead(req.url === '/logo.png' || req.url === '/sale-2026' ? 200 : 404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});
const domain = stack.domains[0];

interface Finding {
  id: string;
  result: string;
  detail: string;
}
interface Section {
  status: string;
  reason: string | null;
  findings: Finding[];
}
type Checks = { message_id: string; checked_at: string; sections: Record<string, Section> };

/**
 * A newsletter with a flaw per section: one-click unsubscribe without https, no Date, a DKIM signature of another
 * domain that does not verify; CSS `:hover` (which Gmail's and Outlook's clients lack); no lang, an image without alt,
 * a layout table without role="presentation"; a link to a page that is gone (404), on the shop's site, which is a
 * real HTTP server on loopback (no test asks the internet).
 */
export const flawedMail = (to: string, site: string) =>
  [
    'From: Shop <news@shop.example>',
    `To: ${to}`,
    'Subject: Our news',
    'Message-ID: <news-1@shop.example>',
    'List-Unsubscribe: <mailto:unsubscribe@shop.example>',
    'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    'DKIM-Signature: v=1; a=rsa-sha256; d=esp.example.net; s=s1; c=relaxed/relaxed; h=from:subject; bh=abc=; b=abc=',
    'MIME-Version: 1.0',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<html><head><style>a:hover { color: red; }</style></head><body><h1>News</h1>' +
      `<table><tr><td><p><img src="${site}/logo.png"></p><p><a href="${site}/sale">Sale</a> <a href="${site}/gone">Old offer</a></p></td></tr></table></body></html>`,
    '',
  ].join('\r\n');

async function received(raw: (to: string) => string): Promise<{ inboxId: string; messageId: string }> {
  const inbox = (await api('POST', '/v1/inboxes', { domain })).body as { id: string; email: string };
  await sendRaw(stack.smtpPort, [inbox.email], raw(inbox.email), 'bounce@shop.example');
  const listed = await eventually(async () => ((await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages as unknown as { id: string }[] | undefined)?.[0], 30_000, 'the message');
  return { inboxId: inbox.id, messageId: listed.id };
}

const results = (section: Section, id: string) => section.findings.filter((f) => f.id === id).map((f) => f.result);

describe('GET …/checks of a mail with a flaw in each section', () => {
  let ids: { inboxId: string; messageId: string };
  let checks: Checks;
  beforeAll(async () => {
    ids = await received((to) => flawedMail(to, siteUrl));
    const reply = await api('GET', `/v1/inboxes/${ids.inboxId}/messages/${ids.messageId}/checks`);
    expect(reply.status).toBe(200);
    checks = reply.body as unknown as Checks;
  }, 90_000);

  it('names the message and when it was checked', () => {
    expect(checks.message_id).toBe(ids.messageId);
    expect(Date.parse(checks.checked_at)).not.toBeNaN();
  });

  it('sender: the one-click header has no https URI, Date is missing, DKIM d= is not aligned with From', () => {
    const sender = checks.sections.sender;
    expect(sender.status).toBe('complete');
    expect(results(sender, 'list-unsubscribe')).toEqual(['warn']);
    expect(results(sender, 'list-unsubscribe-post')).toEqual(['fail']);
    expect(results(sender, 'date')).toEqual(['fail']);
    expect(results(sender, 'message-id')).toEqual(['pass']);
    expect(results(sender, 'dkim-aligned')).toEqual(['fail']);
    expect(sender.findings.find((f) => f.id === 'dkim-aligned')!.detail).toContain('esp.example.net');
  });

  it('authentication: SPF, DKIM, DMARC and ARC computed from the raw mail and envelope; DNS unreachable is temperror with its reason', () => {
    const auth = checks.sections.authentication;
    expect(auth.findings.map((f) => f.id)).toEqual(expect.arrayContaining(['spf', 'dkim', 'dmarc', 'arc']));
    const spf = auth.findings.find((f) => f.id === 'spf')!;
    // The envelope's MAIL FROM domain, and the client address the receiving side's Received field names.
    expect(spf.detail).toContain('shop.example');
    expect(spf.detail).toMatch(/127\.0\.0\.1|::1/);
    // Every form asks the loopback port the test stack names (the template form's checks function has it from
    // tempmail:checkDns, as a deployer sets it): nothing answers there.
    expect(spf.result).toBe('temperror');
    expect(results(auth, 'dmarc')).toEqual(['temperror']);
    // The signature of esp.example.net is not over this body: never a pass.
    expect(results(auth, 'dkim')).toHaveLength(1);
    expect(results(auth, 'dkim')[0]).not.toBe('pass');
  });

  it('html: `:hover` is a feature Gmail and Outlook lack, and their scores say so', () => {
    const html = checks.sections.html;
    expect(html.status).toBe('complete');
    const hover = html.findings.find((f) => f.id === 'feature' && f.detail.startsWith('`:hover`'))!;
    expect(hover.result).toBe('fail');
    expect(hover.detail).toMatch(/not supported by .*gmail \(.*outlook \(windows/);
    expect(results(html, 'score-gmail')).toEqual(['fail']);
    expect(html.findings.find((f) => f.id === 'score-outlook')!.detail).toMatch(/^outlook: \d+ % of \d+ features used; lacks .*`:hover`/);
    expect(results(html, 'score-apple-mail')).toEqual(['pass']);
  });

  it('links: not asked without ?links=true, and no request was made', () => {
    expect(checks.sections.links).toEqual({ status: 'skipped', reason: expect.stringContaining('?links=true'), findings: [] });
    expect(asked).toEqual([]);
  });

  it('links with ?links=true: status, the end of the redirect chain and the time of each link and image; the gone page fails', async () => {
    const reply = await api('GET', `/v1/inboxes/${ids.inboxId}/messages/${ids.messageId}/checks?links=true`);
    expect(reply.status).toBe(200);
    const links = (reply.body as unknown as Checks).sections.links;
    expect(links.status).toBe('complete');
    const of = (path: string) => links.findings.find((f) => f.detail.startsWith(`${siteUrl}${path}:`))!;
    expect(links.findings.map((f) => f.id).sort()).toEqual(['image', 'link', 'link']);
    if (stack.form === 'aws-template') {
      // A deployed function never asks a loopback or private address (the webhook sender's rule): nothing was asked.
      expect(links.findings.map((f) => f.result)).toEqual(['warn', 'warn', 'warn']);
      expect(of('/gone').detail).toContain('not requested: 127.0.0.1 is a loopback');
      expect(asked).toEqual([]);
      return;
    }
    expect(of('/sale')).toMatchObject({ id: 'link', result: 'pass' });
    expect(of('/sale').detail).toMatch(new RegExp(`: 200 after 1 redirect, ending at ${siteUrl}/sale-2026 in \\d+ ms$`));
    expect(of('/gone')).toMatchObject({ id: 'link', result: 'fail' });
    expect(of('/gone').detail).toMatch(/: 404 in \d+ ms$/);
    expect(of('/logo.png')).toMatchObject({ id: 'image', result: 'pass' });
    expect(asked).toEqual(expect.arrayContaining(['HEAD /sale', 'HEAD /sale-2026', 'HEAD /gone', 'HEAD /logo.png']));
  });

  it('accessibility: no lang, an image without alt and a layout table without role="presentation"; the link has text', () => {
    const a11y = checks.sections.accessibility;
    expect(a11y.status).toBe('complete');
    expect(results(a11y, 'lang')).toEqual(['fail']);
    expect(results(a11y, 'img-alt')).toEqual(['fail']);
    expect(a11y.findings.find((f) => f.id === 'img-alt')!.detail).toContain(`${siteUrl}/logo.png`);
    expect(results(a11y, 'layout-table')).toEqual(['fail']);
    expect(results(a11y, 'link-name')).toEqual(['pass']);
    expect(results(a11y, 'heading-order')).toEqual(['pass']);
  });
});

describe('the checks cache: sender, html and accessibility are kept with the message, authentication and links are not', () => {
  const checksOf = async (ids: { inboxId: string; messageId: string }) => {
    const reply = await api('GET', `/v1/inboxes/${ids.inboxId}/messages/${ids.messageId}/checks`);
    expect(reply.status).toBe(200);
    return reply.body as unknown as Checks;
  };
  const stored = async (key: string) => {
    const bytes = await storesFor(stack).blobs.get(key);
    return bytes && (JSON.parse(bytes.toString('utf8')) as { sections: Record<string, Section>; images: string[] });
  };

  it('a first check stores them beside the message; a second answers what is stored (read, not recomputed)', async () => {
    const ids = await received((to) => flawedMail(to, siteUrl));
    const key = blobKeys.checks(ids.inboxId, ids.messageId);
    expect(await stored(key)).toBeNull();
    const first = await checksOf(ids);
    const cached = (await stored(key))!;
    expect(cached.sections).toEqual({ sender: first.sections.sender, html: first.sections.html, accessibility: first.sections.accessibility });
    expect(cached.images).toEqual([`${siteUrl}/logo.png`]);
    // A stored finding changed behind the API's back is what the next check answers: the sections were read.
    const lang = cached.sections.accessibility.findings.find((f) => f.id === 'lang')!;
    lang.detail = 'read from the cache';
    await storesFor(stack).blobs.put(key, JSON.stringify(cached), 'application/json');
    const second = await checksOf(ids);
    expect(second.sections.accessibility.findings.find((f) => f.id === 'lang')!.detail).toBe('read from the cache');
    expect(second.sections.sender).toEqual(first.sections.sender);
    expect(second.sections.html).toEqual(first.sections.html);
    expect(Object.keys(cached.sections).sort()).toEqual(['accessibility', 'html', 'sender']);
    expect(second.sections.authentication.findings.map((f) => f.id)).toEqual(expect.arrayContaining(['spf', 'dkim', 'dmarc']));
  }, 90_000);

  it('an unreadable cache is computed again and replaced', async () => {
    const ids = await received((to) => flawedMail(to, siteUrl));
    const key = blobKeys.checks(ids.inboxId, ids.messageId);
    const first = await checksOf(ids);
    await storesFor(stack).blobs.put(key, '{not json', 'application/json');
    const again = await checksOf(ids);
    expect(again.sections.accessibility).toEqual(first.sections.accessibility);
    expect((await stored(key))!.sections.accessibility).toEqual(first.sections.accessibility);
  }, 90_000);

  it('deleting the message removes its cache; deleting the inbox removes the caches of its messages', async () => {
    const one = await received((to) => flawedMail(to, siteUrl));
    await checksOf(one);
    expect(await stored(blobKeys.checks(one.inboxId, one.messageId))).not.toBeNull();
    expect((await api('DELETE', `/v1/inboxes/${one.inboxId}/messages/${one.messageId}`)).status).toBe(200);
    expect(await stored(blobKeys.checks(one.inboxId, one.messageId))).toBeNull();

    const two = await received((to) => flawedMail(to, siteUrl));
    await checksOf(two);
    expect(await stored(blobKeys.checks(two.inboxId, two.messageId))).not.toBeNull();
    expect((await api('DELETE', `/v1/inboxes/${two.inboxId}`)).status).toBe(200);
    expect(await stored(blobKeys.checks(two.inboxId, two.messageId))).toBeNull();
    expect(await storesFor(stack).blobs.list(blobKeys.inbox(two.inboxId))).toEqual([]);
  }, 120_000);
});

describe('GET …/checks errors are the message\'s own', () => {
  it('404 for an unknown message and for another account\'s inbox', async () => {
    const ids = await received((to) => `From: a@shop.example\r\nTo: ${to}\r\nSubject: x\r\n\r\nhi\r\n`);
    expectError(await api('GET', `/v1/inboxes/${ids.inboxId}/messages/msg_00000000000000000000000000/checks`), 404);
    expectError(await stranger('GET', `/v1/inboxes/${ids.inboxId}/messages/${ids.messageId}/checks`), 404);
    expectError(await api('GET', `/v1/inboxes/${ids.inboxId}/messages/${ids.messageId}/checks?nope=1`), 400);
    expect(expectError(await api('GET', `/v1/inboxes/${ids.inboxId}/messages/${ids.messageId}/checks?links=yes`), 400)).toBe('links must be true or false');
  }, 90_000);
});
