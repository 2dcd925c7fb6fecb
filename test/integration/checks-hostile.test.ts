/**
 * GET …/checks on hostile mail (issue 25), over real SMTP and HTTP: 10,000 links, 2 MB of nested HTML and malformed
 * CSS each answer 200 with the sections that hit a bound partial and saying why; and the API keeps answering while a
 * check runs (the local stack serves everything from one event loop): a small GET sent after a check started is
 * answered before that check is.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { http as apiClient } from '../support/http';
import { eventually, sendRaw } from '../support/mail';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const api = apiClient(stack.apiUrl, stack.keys.enterprise);
const domain = stack.domains[0];

interface Section {
  status: string;
  reason: string | null;
  findings: { id: string; result: string; detail: string }[];
}
type Checks = { sections: Record<string, Section> };

/** A site on loopback whose every page is there; pages under /held/ wait until the test releases them. */
let site: http.Server;
let siteUrl: string;
const held: http.ServerResponse[] = [];
let released = false;
let heldOne: () => void;
const firstHeld = new Promise<void>((resolve) => (heldOne = resolve));
const release = () => {
  released = true;
  for (const res of held.splice(0)) res.writeHead(200).end();
};
beforeAll(async () => {
  site = http.createServer((req, res) => {
    if (!req.url?.startsWith('/held/') || released) return void res.writeHead(200).end();
    held.push(res);
    heldOne();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  release();
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

const mail = (to: string, html: string) =>
  [`From: Shop <news@shop.example>`, `To: ${to}`, 'Subject: hostile', 'MIME-Version: 1.0', 'Content-Type: text/html; charset=utf-8', '', html, ''].join('\r\n');

async function received(html: string): Promise<string> {
  const inbox = (await api('POST', '/v1/inboxes', { domain })).body as { id: string; email: string };
  await sendRaw(stack.smtpPort, [inbox.email], mail(inbox.email, html), 'bounce@shop.example');
  const listed = await eventually(async () => ((await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages as unknown as { id: string }[] | undefined)?.[0], 60_000, 'the message');
  return `/v1/inboxes/${inbox.id}/messages/${listed.id}/checks`;
}

async function check(path: string): Promise<Checks> {
  const reply = await api('GET', path);
  expect(reply.status).toBe(200);
  return reply.body as unknown as Checks;
}

describe('hostile mail answers 200 with partial sections and their reasons', () => {
  it('10,000 links: the HTML sections stop at their element cap, the links section at 50 URLs', async () => {
    const links = Array.from({ length: 10_000 }, (_, i) => `<a href="${siteUrl}/p/${i}">offer ${i}</a>`).join('\r\n');
    const path = await received(`<html lang="en"><body>${links}</body></html>`);
    const checks = await check(`${path}?links=true`);
    expect(checks.sections.html).toMatchObject({ status: 'partial', reason: 'the HTML has more than 5000 elements: the first 5000 were checked' });
    expect(checks.sections.accessibility).toMatchObject({ status: 'partial', reason: 'the HTML has more than 5000 elements: the first 5000 were checked' });
    const linksSection = checks.sections.links;
    expect(linksSection.status).toBe('partial');
    // Ingest keeps the first 1,000 links of a mail (MESSAGE_CAPS.links).
    expect(linksSection.reason).toBe('the mail has 1000 links and image sources: the first 50 were checked');
    expect(linksSection.findings).toHaveLength(50);
    expect(linksSection.findings.every((f) => f.id === 'link' && f.result === 'pass')).toBe(true);
  }, 120_000);

  it('2 MB of nested HTML: no stack overflow; partial at the element cap', async () => {
    const path = await received(`<html><body>${'<div><span>'.repeat(190_000)}deep</body></html>`);
    const checks = await check(path);
    for (const name of ['html', 'accessibility']) {
      expect(checks.sections[name]).toMatchObject({ status: 'partial', reason: 'the HTML has more than 5000 elements: the first 5000 were checked' });
    }
    expect(checks.sections.sender.status).toBe('complete');
  }, 120_000);

  it('malformed CSS: a css-parse warning with where it was, the rest of the HTML still checked', async () => {
    const path = await received('<html><head><style>.a{color:red;;; {{ } @media {{{ .b:hover{display:flex}</style></head><body><p style="color:;;{{}}:::">x</p><video src="v.mp4"></video></body></html>');
    const html = (await check(path)).sections.html;
    expect(html.status).toBe('complete');
    expect(html.findings.find((f) => f.id === 'css-parse')).toMatchObject({ result: 'warn', detail: expect.stringMatching(/<style> element|style attribute of a <p>/) });
    expect(html.findings.some((f) => f.id === 'feature' && f.detail.startsWith('`<video> element`'))).toBe(true);
  }, 120_000);
});

it('the API answers a small GET sent while a check runs before that check finishes', async () => {
  const links = Array.from({ length: 2_000 }, (_, i) => `<p style="margin:${i}px"><a href="${siteUrl}/held/${i}"><img src="${siteUrl}/i/${i}.png">offer ${i}</a></p>`).join('');
  const path = await received(`<html><body>${links}</body></html>`);
  const order: string[] = [];
  const checking = api('GET', `${path}?links=true`).then((reply) => {
    order.push('check');
    return reply;
  });
  // The check is under way (past its HTML pass, asking links) once the site holds its first request.
  await firstHeld;
  const small = await api('GET', '/v1/domains');
  order.push('small GET');
  expect(small.status).toBe(200);
  release();
  expect((await checking).status).toBe(200);
  expect(order).toEqual(['small GET', 'check']);
}, 120_000);
