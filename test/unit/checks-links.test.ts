/**
 * The links section's prober (issue 25) against a real HTTP receiver on loopback, never the internet: a 200, a
 * redirect chain, a 404, HEAD refused with 405 (then GET), a server too slow for the timeout, a redirect loop; the
 * address rule of the webhook sender (loopback, private and metadata addresses refused unless private destinations
 * are allowed, as IP literals and as names); and the bounds (count, time) that make the section partial.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { linkProber } from '../../lambdas/checks/link-probe';
import { linksSection, linkTargets, LINKS_NOT_ASKED, MAX_CHECKED_LINKS } from '../../lambdas/core/checks/links';

let server: http.Server;
let base: string;
const methods: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    methods.push(`${req.method} ${req.url}`);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/ok') return res.writeHead(200).end('fine');
    if (path === '/moved') return res.writeHead(302, { Location: '/moved-again' }).end();
    if (path === '/moved-again') return res.writeHead(301, { Location: `${base}/ok` }).end();
    if (path === '/loop') return res.writeHead(302, { Location: '/loop' }).end();
    if (path === '/no-head') return res.writeHead(req.method === 'HEAD' ? 405 : 200).end();
    if (path === '/slow') return; // never answers
    res.writeHead(404).end('no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const later = () => Date.now() + 30_000;
const local = linkProber({ allowPrivate: true, timeoutMs: 500 });

it('reports status, the end of the redirect chain and the time; HEAD first, GET where HEAD is refused', async () => {
  const targets = ['/ok', '/moved', '/missing', '/no-head', '/slow', '/loop'].map((p) => ({ url: `${base}${p}`, kind: 'link' as const }));
  const report = await local.probe(targets, later());
  const by = (p: string) => report.outcomes.find((o) => o.url === `${base}${p}`)!;
  expect(by('/ok')).toMatchObject({ status: 200, redirects: 0 });
  expect(by('/moved')).toMatchObject({ status: 200, redirects: 2, finalUrl: `${base}/ok` });
  expect(by('/missing')).toMatchObject({ status: 404 });
  expect(by('/no-head')).toMatchObject({ status: 200 });
  expect(methods).toEqual(expect.arrayContaining(['HEAD /no-head', 'GET /no-head']));
  expect(methods.filter((m) => m.endsWith(' /ok') && m.startsWith('GET'))).toEqual([]);
  expect(by('/slow').error).toBe('no answer within 500 ms');
  expect(by('/loop').error).toMatch(/^more than 5 redirects/);
  expect(report.outcomes.every((o) => o.ms >= 0)).toBe(true);
  expect(report.cutShort).toBeNull();

  const section = linksSection(report, targets.length);
  expect(section.status).toBe('complete');
  expect(section.findings.map((f) => f.result)).toEqual(['pass', 'pass', 'fail', 'pass', 'fail', 'fail']);
  expect(section.findings[1].detail).toMatch(new RegExp(`^${base}/moved: 200 after 2 redirects, ending at ${base}/ok in \\d+ ms$`));
});

it('refuses loopback, private and metadata addresses unless private destinations are allowed, at every hop', async () => {
  const strict = linkProber({ allowPrivate: false, timeoutMs: 500 });
  const before = methods.length;
  const report = await strict.probe(
    [
      { url: `${base}/ok`, kind: 'link' },
      { url: `http://localhost:${new URL(base).port}/ok`, kind: 'image' },
      { url: 'http://169.254.169.254/latest/meta-data/', kind: 'link' },
      { url: 'ftp://files.example/x', kind: 'link' },
    ],
    later(),
  );
  expect(report.outcomes.map((o) => o.refused)).toEqual([
    '127.0.0.1 is a loopback, private, link-local, multicast or reserved address',
    expect.stringMatching(/^localhost resolves to .* is a loopback/),
    '169.254.169.254 is a loopback, private, link-local, multicast or reserved address',
    'ftp: is not http or https',
  ]);
  expect(methods.length).toBe(before);
  expect(linksSection(report, 4).findings.map((f) => f.result)).toEqual(['warn', 'warn', 'warn', 'warn']);
});

it('never asks a link-local address, the instance metadata among them, even where private destinations are allowed', async () => {
  const before = methods.length;
  const report = await local.probe(
    [
      { url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/', kind: 'link' },
      { url: 'http://[fd00:ec2::254]/latest/meta-data/', kind: 'link' },
      { url: 'http://[::ffff:169.254.169.254]/', kind: 'image' },
      { url: 'http://[fe80::1]/', kind: 'link' },
      { url: `${base}/ok`, kind: 'link' }, // loopback: allowed locally
    ],
    later(),
  );
  expect(report.outcomes.map((o) => o.refused ?? o.status)).toEqual([
    '169.254.169.254 is a link-local or instance metadata address, never reached',
    'fd00:ec2::254 is a link-local or instance metadata address, never reached',
    '::ffff:a9fe:a9fe is a link-local or instance metadata address, never reached',
    'fe80::1 is a link-local or instance metadata address, never reached',
    200,
  ]);
  expect(methods.length).toBe(before + 1);
});

it('asks at most MAX_CHECKED_LINKS URLs, links before images, each once, and says how many there were', () => {
  const links = Array.from({ length: 10_000 }, (_, i) => `https://x.example/${i}`);
  const { targets, total } = linkTargets([...links, links[0], 'mailto:a@b.example'], ['https://img.example/a.png']);
  expect(total).toBe(10_001);
  expect(targets).toHaveLength(MAX_CHECKED_LINKS);
  expect(targets.every((t) => t.kind === 'link')).toBe(true);
  const section = linksSection({ outcomes: [], cutShort: null }, total);
  expect(section).toMatchObject({ status: 'partial', reason: `the mail has 10001 links and image sources: the first ${MAX_CHECKED_LINKS} were checked` });
  expect(linksSection(null, 3)).toEqual({ status: 'skipped', reason: LINKS_NOT_ASKED, findings: [] });
});

it('stops at the deadline: the URLs not answered make the section partial', async () => {
  const targets = Array.from({ length: 20 }, () => ({ url: `${base}/slow`, kind: 'link' as const })).map((t, i) => ({ ...t, url: `${t.url}?${i}` }));
  const report = await linkProber({ allowPrivate: true, timeoutMs: 5_000 }).probe(targets, Date.now() + 200);
  expect(report.cutShort).toMatch(/^the time budget of the link checks was spent: \d+ of 20 URLs not answered$/);
  expect(linksSection(report, 20).status).toBe('partial');
});
