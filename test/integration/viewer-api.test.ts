/**
 * What the viewer needs from the API, over real HTTP (and SMTP) against the shared stack of each store: the inbox
 * list, the message filters combined with paging, CORS on success and on the gateway's own errors, the viewer's
 * files with their headers and compression. Runs in the embedded and the dynamodb projects.
 */
import { gunzipSync } from 'node:zlib';
import http from 'node:http';
import { expectError, http as request } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';
import { startStack } from '../support/stack';
import { newTestKey } from '../support/keys';
import { storesFor } from '../support/store';

const stack = sharedStack();
const store = storesFor(stack);
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const freshKey = (plan: 'dev' | 'enterprise' = 'enterprise') => newTestKey(stack, plan);

/** Every page of a list, following next_cursor. */
async function allPages<T>(api: ReturnType<typeof request>, path: string, field: string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const reply = await api('GET', `${path}${path.includes('?') ? '&' : '?'}${cursor ? `cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status).toBe(200);
    items.push(...reply.body[field]);
    cursor = reply.body.next_cursor;
    pages++;
  } while (cursor && pages < 50);
  return { items, pages };
}

describe('GET /v1/inboxes', () => {
  it("lists the caller's inboxes, newest first, paged, with the Inbox fields; another account's stay out", async () => {
    const api = request(stack.apiUrl, await freshKey());
    expect((await api('GET', '/v1/inboxes')).body).toEqual({ inboxes: [] });
    const created: { id: string; email: string }[] = [];
    for (let i = 0; i < 5; i++) {
      created.push((await api('POST', '/v1/inboxes', { username: unique(`list${i}`), ttl: 600 + i })).body);
      // created_at has whole seconds: two of them a second apart make the order observable.
      if (i === 2) await new Promise((r) => setTimeout(r, 1100));
    }
    const other = request(stack.apiUrl, await freshKey());
    await other('POST', '/v1/inboxes', {});

    const whole = await api('GET', '/v1/inboxes');
    expect(whole.status).toBe(200);
    expect(whole.body.next_cursor).toBeUndefined();
    expect(whole.body.inboxes.map((i: { id: string }) => i.id).sort()).toEqual(created.map((c) => c.id).sort());
    const first = whole.body.inboxes[0];
    expect(Object.keys(first).sort()).toEqual(['created_at', 'email', 'expires_at', 'group', 'id', 'message_count', 'status']);
    expect(first).toMatchObject({ status: 'active', message_count: 0 });
    const times = whole.body.inboxes.map((i: { created_at: string }) => i.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    // The two made after the pause come first.
    expect(whole.body.inboxes.slice(0, 2).map((i: { id: string }) => i.id).sort()).toEqual([created[3].id, created[4].id].sort());

    const paged = await allPages<{ id: string }>(api, '/v1/inboxes?limit=2', 'inboxes');
    expect(paged.pages).toBe(3);
    expect(paged.items.map((i) => i.id)).toEqual(whole.body.inboxes.map((i: { id: string }) => i.id));
  });

  it('shows an expired inbox as expired until it is removed, and counts its messages', async () => {
    const api = request(stack.apiUrl, await freshKey());
    const inbox = (await api('POST', '/v1/inboxes', { username: unique('exp') })).body;
    await sendMail(stack.smtpPort, { to: inbox.email, subject: 'one', text: 'one' });
    // Stored before the 250 locally; on the template form SES's Lambda action runs after it, as on AWS.
    await eventually(async () => ((await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.total === 1 ? true : null), 20_000, 'the message');
    await store.setExpiry(inbox.id, inbox.email, Math.floor(Date.now() / 1000) - 5);
    const listed = (await api('GET', '/v1/inboxes')).body.inboxes;
    expect(listed).toEqual([expect.objectContaining({ id: inbox.id, status: 'expired', message_count: 1 })]);
    expectError(await api('GET', `/v1/inboxes/${inbox.id}`), 404);
  });

  it('refuses a cursor it did not make, an out-of-range limit and unknown parameters with 400', async () => {
    const api = request(stack.apiUrl, await freshKey());
    expect(expectError(await api('GET', '/v1/inboxes?cursor=bm90LWEtY3Vyc29y'), 400)).toMatch(/cursor/);
    expect(expectError(await api('GET', '/v1/inboxes?limit=0'), 400)).toMatch(/limit/);
    expect(expectError(await api('GET', '/v1/inboxes?q=x'), 400)).toMatch(/unknown query field/);
  });
});

describe('message filters', () => {
  const api = request(stack.apiUrl, stack.keys.enterprise);
  let inboxId: string;
  const mails = [
    { from: 'Acme Billing <billing@acme.example>', subject: 'Invoice 1001', text: 'Your invoice is attached.' },
    { from: 'Acme Security <security@acme.example>', subject: 'Your CODE', text: 'Use 482913 to sign in.' },
    { from: 'Zed <zed@other.example>', subject: 'Hello', text: 'Nothing about ACME here? Yes: acme in text.' },
    { from: 'Zed <zed@other.example>', subject: 'Invoice 1002', text: 'Second invoice.' },
    { from: 'Ünïcode Sender <u@other.example>', subject: 'Grüße', text: 'Straße' },
    { from: 'Acme Billing <billing@acme.example>', subject: 'Invoice 1003', text: 'Third.' },
  ];

  beforeAll(async () => {
    const inbox = (await api('POST', '/v1/inboxes', { username: unique('filters') })).body;
    inboxId = inbox.id;
    for (const mail of mails) await sendMail(stack.smtpPort, { to: inbox.email, ...mail });
    for (let i = 0; i < 100 && (await api('GET', `/v1/inboxes/${inboxId}`)).body.message_count < mails.length; i++) await new Promise((r) => setTimeout(r, 100));
  });

  const subjects = async (query: string, limit?: number) => {
    const { items } = await allPages<{ subject: string }>(api, `/v1/inboxes/${inboxId}/messages?${query}${limit ? `&limit=${limit}` : ''}`, 'messages');
    return items.map((m) => m.subject);
  };

  it('q matches subject, sender and text, in any case, newest first', async () => {
    expect(await subjects('q=acme')).toEqual(['Invoice 1003', 'Hello', 'Your CODE', 'Invoice 1001']);
    expect(await subjects('q=482913')).toEqual(['Your CODE']);
    expect(await subjects('q=YOUR%20code')).toEqual(['Your CODE']);
    expect(await subjects('q=sign%20IN')).toEqual(['Your CODE']);
    expect(await subjects(`q=${encodeURIComponent('GRÜSSE')}`)).toEqual([]); // toLowerCase, not Unicode case folding
    expect(await subjects(`q=${encodeURIComponent('grüße')}`)).toEqual(['Grüße']);
    expect(await subjects(`q=${encodeURIComponent('ünïcode')}`)).toEqual(['Grüße']);
    expect(await subjects('q=nothing-matches-this')).toEqual([]);
  });

  it('from and subject match their own field only, and combine with q', async () => {
    expect(await subjects('from=BILLING')).toEqual(['Invoice 1003', 'Invoice 1001']);
    expect(await subjects('from=zed')).toEqual(['Invoice 1002', 'Hello']);
    expect(await subjects('subject=invoice')).toEqual(['Invoice 1003', 'Invoice 1002', 'Invoice 1001']);
    expect(await subjects('subject=invoice&from=acme')).toEqual(['Invoice 1003', 'Invoice 1001']);
    expect(await subjects('subject=invoice&q=second')).toEqual(['Invoice 1002']);
    expect(await subjects('from=482913')).toEqual([]);
  });

  it('pages a filtered list: every match once, in order, whatever the page size; total stays the inbox count', async () => {
    for (const limit of [1, 2, 3]) expect(await subjects('q=invoice', limit)).toEqual(['Invoice 1003', 'Invoice 1002', 'Invoice 1001']);
    const page = await api('GET', `/v1/inboxes/${inboxId}/messages?q=invoice&limit=1`);
    expect(page.body.total).toBe(mails.length);
    expect(page.body.messages).toHaveLength(1);
    expect(page.body.next_cursor).toEqual(expect.any(String));
    // An empty term filters nothing.
    expect(await subjects('q=')).toHaveLength(mails.length);
  });

  it('reports how many match (matched) beside the inbox total, from the page on, and nothing when unfiltered', async () => {
    const list = async (query: string) => (await api('GET', `/v1/inboxes/${inboxId}/messages?${query}`)).body;
    expect(await list('q=zzz-nothing')).toEqual({ messages: [], total: mails.length, matched: 0, matched_exact: true });
    expect(await list('q=acme')).toMatchObject({ total: mails.length, matched: 4, matched_exact: true });
    expect(await list('subject=invoice&from=acme')).toMatchObject({ matched: 2, matched_exact: true });
    // A page smaller than the match: the count still covers every match, and the next page counts from its start.
    const first = await list('q=invoice&limit=1');
    expect(first).toMatchObject({ total: mails.length, matched: 3, matched_exact: true, next_cursor: expect.any(String) });
    expect(first.messages).toHaveLength(1);
    const second = await list(`q=invoice&limit=1&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(second).toMatchObject({ matched: 2, matched_exact: true });
    const unfiltered = await list('limit=2');
    expect(unfiltered.total).toBe(mails.length);
    expect(unfiltered).not.toHaveProperty('matched');
    expect(unfiltered).not.toHaveProperty('matched_exact');
  });

  it('keeps 404 for another account and 400 for over-long terms', async () => {
    const other = request(stack.apiUrl, stack.keys.startup);
    expectError(await other('GET', `/v1/inboxes/${inboxId}/messages?q=acme`), 404);
    expect(expectError(await api('GET', `/v1/inboxes/${inboxId}/messages?q=${'x'.repeat(201)}`), 400)).toMatch(/q/);
  });
});

describe('CORS', () => {
  const exposed = (headers: Headers) => (headers.get('access-control-expose-headers') ?? '').split(/,\s*/);

  function expectCors(headers: Headers, origin = '*') {
    expect(headers.get('access-control-allow-origin')).toBe(origin);
    expect(exposed(headers)).toEqual(expect.arrayContaining(['X-Request-Id', 'Retry-After']));
  }

  it('answers a preflight on every API resource without a key', async () => {
    for (const path of ['/v1/inboxes', '/v1/inboxes/inbox_00000000000000000000', '/v1/inboxes/x/messages', '/v1/inboxes/x/messages/wait', '/v1/inboxes/x/messages/y/raw', '/v1/domains']) {
      const res = await fetch(`${stack.apiUrl}${path}`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://tool.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' },
      });
      expect([path, res.status]).toEqual([path, 204]);
      expectCors(res.headers);
      expect(res.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/);
      expect(res.headers.get('access-control-allow-methods')).toMatch(/GET/);
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    }
    const inboxes = await fetch(`${stack.apiUrl}/v1/inboxes`, { method: 'OPTIONS' });
    expect(inboxes.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
  });

  it('carries the headers on success, on 401, on 404 (handler and gateway) and on 400', async () => {
    const api = request(stack.apiUrl, stack.keys.enterprise);
    const ok = await api('GET', '/v1/domains', undefined, { Origin: 'https://tool.example' });
    expect(ok.status).toBe(200);
    expectCors(ok.headers);
    const unauthorized = await request(stack.apiUrl, 'tm_wrong')('GET', '/v1/inboxes');
    expectError(unauthorized, 401);
    expectCors(unauthorized.headers);
    const missing = await api('GET', '/v1/inboxes/inbox_00000000000000000000');
    expectError(missing, 404);
    expectCors(missing.headers);
    const noRoute = await api('GET', '/v1/nothing');
    expectError(noRoute, 404);
    expectCors(noRoute.headers);
    const bad = await api('GET', '/v1/inboxes?limit=1000');
    expectError(bad, 400);
    expectCors(bad.headers);
  });

  it('carries them on 429, with Retry-After readable by a page', async () => {
    const api = request(stack.apiUrl, await freshKey('dev'));
    let limited;
    for (let i = 0; i < 40 && !limited; i++) {
      const reply = await api('GET', '/v1/domains');
      if (reply.status === 429) limited = reply;
    }
    expect(limited).toBeDefined();
    expectError(limited!, 429);
    expectCors(limited!.headers);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  // The template form's origin is the CDK context's (tempmail:corsOrigin, at synth), not this variable.
  (stack.form === 'aws-template' ? it.skip : it)('takes the allowed origin from TEMPMAIL_CORS_ORIGIN', async () => {
    const own = await startStack({ env: { TEMPMAIL_CORS_ORIGIN: 'https://viewer.example.com' } });
    try {
      const ok = await request(own.apiUrl, own.keys.dev)('GET', '/v1/domains');
      expectCors(ok.headers, 'https://viewer.example.com');
      expect(ok.headers.get('vary')).toMatch(/Origin/);
      const denied = await request(own.apiUrl, 'tm_wrong')('GET', '/v1/domains');
      expectCors(denied.headers, 'https://viewer.example.com');
      const preflight = await fetch(`${own.apiUrl}/v1/domains`, { method: 'OPTIONS' });
      expectCors(preflight.headers, 'https://viewer.example.com');
    } finally {
      await own.stop();
    }
  }, 90_000);
});

describe("the viewer's files", () => {
  /** A raw GET (fetch would decode the body): status, headers and the bytes as sent. */
  const rawGet = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get(`${stack.apiUrl}${path}`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });

  it('serves the page and its hashed files with security headers, cacheable, gzip-compressed when asked', async () => {
    const page = await rawGet('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const scripts = [...page.body.toString().matchAll(/(?:src|href)="(viewer\/[^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(2);
    for (const file of scripts) {
      const plain = await rawGet(`/${file}`);
      expect(plain.status).toBe(200);
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['x-content-type-options']).toBe('nosniff');
      const zipped = await rawGet(`/${file}`, { 'Accept-Encoding': 'gzip' });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
      expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    }
    expectError(await request(stack.apiUrl)('GET', '/viewer/nothing.js'), 404);
    expectError(await request(stack.apiUrl)('GET', '/viewer/..%2Fpackage.json'), 404);
  });
});
