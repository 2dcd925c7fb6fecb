/** The REST API over real HTTP against the shared local stack: every endpoint and each rule of DESIGN §3. */
import net from 'node:net';
import { messageIdFrom } from '../../lambdas/core/ids';
import type { InboxRecord, MessageRecord } from '../../lambdas/core/model';
import { BASE_PLANS, burstOf, ratePerSecond } from '../../lambdas/core/plans';
import { expectError, http } from '../support/http';
import { sharedStack } from '../support/shared';
import { newTestKey } from '../support/keys';
import { storesFor } from '../support/store';
import { epochSeconds } from '../../lambdas/core/inbox';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);
const other = http(stack.apiUrl, stack.keys.startup); // another account
const store = storesFor(stack);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

async function freshKey(plan: 'dev' | 'startup' | 'enterprise' | 'free') {
  return newTestKey(stack, plan);
}

describe('POST /v1/inboxes', () => {
  it('creates an inbox with the specified fields, 201', async () => {
    const reply = await api('POST', '/v1/inboxes', {});
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(['created_at', 'email', 'expires_at', 'group', 'id', 'ttl']);
    expect(reply.body.group).toBeNull();
    expect(reply.body.id).toMatch(/^inbox_[0-9a-z]{20}$/);
    expect(reply.body.email).toMatch(/^[a-z0-9]{10}@tempmail\.local$/);
    expect(reply.body.created_at).toMatch(ISO);
    expect(reply.body.expires_at).toMatch(ISO);
    expect(reply.body.ttl).toBe(3600);
    expect(Date.parse(reply.body.expires_at) - Date.parse(reply.body.created_at)).toBe(3600 * 1000);
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('treats an empty body as {}', async () => {
    const reply = await api('POST', '/v1/inboxes', undefined);
    expect(reply.status).toBe(201);
  });

  it('honours username (stored lower-case), domain (any case) and ttl', async () => {
    const name = unique('Alice.B');
    const reply = await api('POST', '/v1/inboxes', { username: name, domain: 'INBOX.test', ttl: 120 });
    expect(reply.status).toBe(201);
    expect(reply.body.email).toBe(`${name.toLowerCase()}@inbox.test`);
    expect(Date.parse(reply.body.expires_at) - Date.parse(reply.body.created_at)).toBe(120_000);
  });

  it('answers 409 for an address held by a live inbox, of any account, in any case', async () => {
    const name = unique('taken');
    expect((await api('POST', '/v1/inboxes', { username: name })).status).toBe(201);
    expect(expectError(await api('POST', '/v1/inboxes', { username: name.toUpperCase() }), 409)).toContain(`${name}@tempmail.local`);
    expectError(await other('POST', '/v1/inboxes', { username: name }), 409);
    // The same username on another domain is another address.
    expect((await api('POST', '/v1/inboxes', { username: name, domain: 'mailbox.test' })).status).toBe(201);
  });

  it.each(['', '.a', 'a.', '-a', 'a-', 'a..b', 'a+b', 'a b', 'ä', 'a@b', 'x'.repeat(65), '../x'])('rejects username %j with 400', async (username) => {
    expect(expectError(await api('POST', '/v1/inboxes', { username }), 400)).toMatch(/username/);
  });

  it.each(['a', '0', 'a.b-c_d', 'x'.repeat(64)])('accepts username %j', async (base) => {
    const username = base.length >= 60 ? base : `${base}${unique('')}`.slice(0, 64);
    expect((await api('POST', '/v1/inboxes', { username })).status).toBe(201);
  });

  it('rejects a domain that is not configured, naming the allowed ones', async () => {
    const message = expectError(await api('POST', '/v1/inboxes', { domain: 'gmail.com' }), 400);
    expect(message).toContain('tempmail.local, inbox.test, mailbox.test');
  });

  it.each([
    [59, 400],
    [0, 400],
    [-5, 400],
    [1.5, 400],
    ['3600', 400],
    [null, 400],
  ])('ttl %j → %i', async (ttl, status) => {
    expect(expectError(await api('POST', '/v1/inboxes', { ttl }), status)).toMatch(/ttl/);
  });

  it('ttl above the plan maximum is 403; at the maximum it is granted', async () => {
    const dev = http(stack.apiUrl, await freshKey('dev'));
    expect(expectError(await dev('POST', '/v1/inboxes', { ttl: 86_401 }), 403)).toMatch(/dev plan/);
    expect((await dev('POST', '/v1/inboxes', { ttl: 86_400 })).status).toBe(201);
    expect((await api('POST', '/v1/inboxes', { ttl: 30 * 86_400 })).body.ttl).toBe(30 * 86_400);
    expectError(await api('POST', '/v1/inboxes', { ttl: 30 * 86_400 + 1 }), 403);
  });

  it('rejects malformed JSON, non-objects and unknown fields with 400', async () => {
    expect(expectError(await api('POST', '/v1/inboxes', '{"ttl": 60', {}), 400)).toMatch(/JSON/);
    expectError(await api('POST', '/v1/inboxes', '[]'), 400);
    expectError(await api('POST', '/v1/inboxes', '"x"'), 400);
    expectError(await api('POST', '/v1/inboxes', 'null'), 400);
    expect(expectError(await api('POST', '/v1/inboxes', { ttl: 60, colour: 'red' }), 400)).toContain('colour');
  });
});

describe('query validation messages', () => {
  it('names the field and what is wrong with it', async () => {
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    expect(expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages?cursor=${'x'.repeat(201)}`), 400)).toBe('cursor: Too big: expected string to have <=200 characters');
    expect(expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages?limit=0`), 400)).toBe('limit must be an integer from 1 to 100');
    expect(expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages/wait?from=${'x'.repeat(321)}`), 400)).toMatch(/^from: Too big/);
  });

  it('refuses a query parameter given twice instead of keeping the last', async () => {
    expect(expectError(await api('GET', '/v1/inboxes?group=a&group=b'), 400)).toBe('query parameter group is given 2 times; give it once');
    expect(expectError(await api('DELETE', '/v1/inboxes?group=a&group=a&group=b'), 400)).toBe('query parameter group is given 3 times; give it once');
  });
});

describe('GET and DELETE /v1/inboxes/{id}', () => {
  it('returns the inbox with message_count and status', async () => {
    const created = (await api('POST', '/v1/inboxes', { ttl: 300 })).body;
    const reply = await api('GET', `/v1/inboxes/${created.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      id: created.id,
      email: created.email,
      created_at: created.created_at,
      expires_at: created.expires_at,
      message_count: 0,
      status: 'active',
      group: null,
    });
  });

  it('deletes with 200 {"deleted": true}; afterwards 404, and the address is free', async () => {
    const name = unique('bye');
    const created = (await api('POST', '/v1/inboxes', { username: name })).body;
    const reply = await api('DELETE', `/v1/inboxes/${created.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ deleted: true });
    expect(expectError(await api('GET', `/v1/inboxes/${created.id}`), 404)).toBe(`inbox not found: ${created.id}`);
    expectError(await api('GET', `/v1/inboxes/${created.id}/messages`), 404);
    expectError(await api('DELETE', `/v1/inboxes/${created.id}`), 404);
    expect((await api('POST', '/v1/inboxes', { username: name })).status).toBe(201);
  });

  it('answers 404 for ids that never existed or are malformed', async () => {
    expectError(await api('GET', '/v1/inboxes/inbox_00000000000000000000'), 404);
    expectError(await api('GET', '/v1/inboxes/nonsense'), 404);
    expectError(await api('GET', `/v1/inboxes/${encodeURIComponent('inbox_../../x')}`), 404);
  });

  it('an expired inbox answers 404 "inbox expired" everywhere, and its address is free again', async () => {
    const name = unique('old');
    const created = (await api('POST', '/v1/inboxes', { username: name, ttl: 60 })).body;
    await store.setExpiry(created.id, created.email, Math.floor(Date.now() / 1000) - 1);
    for (const [method, path] of [
      ['GET', `/v1/inboxes/${created.id}`],
      ['GET', `/v1/inboxes/${created.id}/messages`],
      ['GET', `/v1/inboxes/${created.id}/messages/msg_00000000000000000000000000`],
      ['DELETE', `/v1/inboxes/${created.id}`],
    ]) {
      expect(expectError(await api(method, path), 404)).toBe(`inbox expired: ${created.id}`);
    }
    expect((await api('POST', '/v1/inboxes', { username: name })).status).toBe(201);
  });
});

describe('authentication, plans and ownership', () => {
  it('answers 401 without a key or with an unknown or revoked key, in the error format', async () => {
    expectError(await http(stack.apiUrl)('GET', '/v1/domains'), 401);
    expectError(await http(stack.apiUrl, 'tm_nope')('POST', '/v1/inboxes', {}), 401);
    const key = await freshKey('startup');
    expect((await http(stack.apiUrl, key)('GET', '/v1/domains')).status).toBe(200);
    const { revokeKey } = await import('../../lambdas/usecases/keys');
    await revokeKey(store.keyContext, key);
    expectError(await http(stack.apiUrl, key)('GET', '/v1/domains'), 401);
  });

  it('answers 403 to a free-plan key on every endpoint', async () => {
    const free = http(stack.apiUrl, stack.keys.free);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    for (const [method, path] of [
      ['POST', '/v1/inboxes'],
      ['GET', `/v1/inboxes/${inbox.id}`],
      ['GET', `/v1/inboxes/${inbox.id}/messages`],
      ['GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=1`],
      ['GET', `/v1/inboxes/${inbox.id}/messages/msg_00000000000000000000000000`],
      ['GET', `/v1/inboxes/${inbox.id}/messages/msg_00000000000000000000000000/raw`],
      ['DELETE', `/v1/inboxes/${inbox.id}/messages/msg_00000000000000000000000000`],
      ['DELETE', `/v1/inboxes/${inbox.id}`],
      ['GET', '/v1/domains'],
    ]) {
      expect(expectError(await free(method, path), 403)).toMatch(/plan/);
    }
    expect((await api('GET', `/v1/inboxes/${inbox.id}`)).status).toBe(200);
  });

  it("answers 404, never 403, for another account's inbox, and changes nothing", async () => {
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    for (const [method, path] of [
      ['GET', `/v1/inboxes/${inbox.id}`],
      ['GET', `/v1/inboxes/${inbox.id}/messages`],
      ['GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=1`],
      ['DELETE', `/v1/inboxes/${inbox.id}`],
    ]) {
      expect(expectError(await other(method, path), 404)).toBe(`inbox not found: ${inbox.id}`);
    }
    expect((await api('GET', `/v1/inboxes/${inbox.id}`)).status).toBe(200);
  });
});

describe('GET /v1/inboxes/{id}/messages paging', () => {
  let inbox: InboxRecord;
  const ids: string[] = [];

  beforeAll(async () => {
    const created = (await api('POST', '/v1/inboxes', { ttl: 600 })).body;
    inbox = (await store.inboxes.getInbox(created.id))!;
    const start = Date.now() - 1_000_000;
    const day = new Date().toISOString().slice(0, 10);
    for (let i = 0; i < 250; i++) {
      const id = messageIdFrom(`seed-${i}-${inbox.id}`, start + i * 1000);
      ids.push(id);
      const message: MessageRecord = {
        id,
        inbox_id: inbox.id,
        from: `sender${i}@example.com`,
        from_name: i % 2 ? `Sender ${i}` : null,
        to: inbox.email,
        subject: `Message ${i}`,
        received_at: new Date(start + i * 1000).toISOString(),
        size: 1000 + i,
        text: `body ${i}`,
        html: '',
        attachments: [],
        codes: [],
        links: [],
        auth: { spf: 'DISABLED', dkim: 'DISABLED', dmarc: 'DISABLED', spam: 'DISABLED', virus: 'DISABLED' },
        raw_key: `inboxes/${inbox.id}/${id}/raw.eml`,
      };
      expect(await store.inboxes.putMessage(message, inbox, { nowEpoch: epochSeconds(Date.now()), day: day, dailyLimit: 1_000_000 })).toBe('stored');
    }
  });

  it('walks 250 messages newest first in pages of 100, 100, 50 with next_cursor, total always 250', async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(reply.status).toBe(200);
      expect(reply.body.total).toBe(250);
      sizes.push(reply.body.messages.length);
      seen.push(...reply.body.messages.map((m: { id: string }) => m.id));
      cursor = reply.body.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([100, 100, 50]);
    expect(seen).toEqual([...ids].reverse());
  });

  it('summaries carry exactly the summary fields; the default page is 100', async () => {
    const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages`);
    expect(reply.body.messages).toHaveLength(100);
    expect(typeof reply.body.next_cursor).toBe('string');
    expect(reply.body.messages[0]).toEqual({
      id: ids[249],
      from: 'sender249@example.com',
      from_name: 'Sender 249',
      subject: 'Message 249',
      received_at: expect.stringMatching(ISO),
      size: 1249,
      envelope: null, // written to the store without one, as messages stored before envelopes were kept
    });
  });

  it('a page that ends exactly at the last message carries no cursor', async () => {
    const sizes: number[] = [];
    let cursor = '';
    do {
      const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      sizes.push(reply.body.messages.length);
      cursor = reply.body.next_cursor ?? '';
    } while (cursor);
    expect(sizes).toEqual([50, 50, 50, 50, 50]);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'cursor=bm9wZQ', 'colour=red'])('rejects %s with 400', async (query) => {
    expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages?${query}`), 400);
  });

  it('shows message_count on the inbox', async () => {
    expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(250);
  });
});

describe('routing, documents and request ids', () => {
  it('answers unknown routes with 404 and wrong methods with 405, in the error format', async () => {
    expectError(await api('GET', '/v1/nothing'), 404);
    expectError(await api('GET', '/nothing'), 404);
    expectError(await api('GET', '/v2/inboxes'), 404);
    const reply = await api('PUT', '/v1/inboxes');
    expectError(reply, 405);
    expect(reply.headers.get('allow')).toBe('GET, POST, DELETE');
    expectError(await api('PATCH', '/v1/inboxes/inbox_00000000000000000000'), 405);
  });

  // The local gateway's own answer; on AWS the front end before API Gateway answers these, which the template form
  // does not emulate.
  (stack.form === 'aws-template' ? it.skip : it)('answers requests that never reach a route in the error format too: CONNECT 405, a target URL cannot parse 400', async () => {
    /** The whole answer to `request`, written as is on a socket of its own. */
    const exchange = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const { hostname, port } = new URL(stack.apiUrl);
        const socket = net.createConnection({ host: hostname, port: Number(port) }, () => socket.write(request));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    const parts = (answer: string) => {
      const [head, body] = answer.split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), type: /content-type: ([^\r]+)/i.exec(head)?.[1], body: JSON.parse(body) };
    };
    for (const [request, status] of [
      ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405],
      ['GET http://[/v1/inboxes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400],
      ['GET http://a:99999/v1/domains HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400],
    ] as const) {
      const answer = parts(await exchange(request));
      expect(answer).toMatchObject({ status, type: expect.stringMatching(/^application\/json/), body: { error: { code: status, message: expect.any(String) } } });
    }
  });

  it('lists the domains, the first being the default', async () => {
    const reply = await api('GET', '/v1/domains');
    expect(reply.body).toEqual({ domains: ['tempmail.local', 'inbox.test', 'mailbox.test'] });
  });

  it('serves an OpenAPI 3.1 document without a key, covering every route', async () => {
    const reply = await http(stack.apiUrl)('GET', '/v1/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe('3.1.0');
    const { isApiRoute, ROUTES } = await import('../../lambdas/contract/routes');
    // The API's routes; the viewer's page and files are not part of the API.
    expect(Object.keys(reply.body.paths).every((p) => p.startsWith('/v1/'))).toBe(true);
    for (const route of ROUTES.filter(isApiRoute)) expect(reply.body.paths[route.path][route.method.toLowerCase()].operationId).toBe(route.name);
    expect(reply.body.components.schemas.CreateInboxRequest.properties.ttl.type).toBe('integer');
    expect(reply.body.components.schemas.CreateInboxRequest.additionalProperties).toBe(false);
  });

  it('puts X-Request-Id on errors as well', async () => {
    const reply = await http(stack.apiUrl)('GET', '/v1/domains');
    // On AWS (the template form) API Gateway's own answers carry its x-amzn-RequestId instead (docs/API.md).
    expect(reply.headers.get(stack.form === 'aws-template' ? 'x-amzn-requestid' : 'x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('rate limit', () => {
  it('gives a dev key 429 with Retry-After once its burst of 10 is spent, and serves it again after waiting', async () => {
    const dev = http(stack.apiUrl, await freshKey('dev'));
    const statuses: number[] = [];
    let retryAfter = 0;
    // Until the first 429: the burst of 10, plus what the bucket refilled (1 a second) meanwhile, however slowly
    // the requests went. The refill is bounded by the time they took, so the count is checked against that time,
    // never against a time the test assumes.
    const started = Date.now();
    while (retryAfter === 0 && statuses.length < 100) {
      const reply = await dev('GET', '/v1/domains');
      statuses.push(reply.status);
      if (reply.status === 429) {
        expectError(reply, 429);
        retryAfter = Number(reply.headers.get('retry-after'));
      }
    }
    const refilled = Math.ceil((Date.now() - started) / 1000) * ratePerSecond(BASE_PLANS.dev);
    const served = statuses.filter((s) => s === 200).length;
    expect(statuses[statuses.length - 1]).toBe(429);
    expect(served).toBeGreaterThanOrEqual(burstOf(BASE_PLANS.dev));
    expect(served).toBeLessThanOrEqual(burstOf(BASE_PLANS.dev) + refilled);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 100));
    expect((await dev('GET', '/v1/domains')).status).toBe(200);
  });
});
