/** Domain rules, tested directly: no AWS, no network. */
import { inboxAddressFor, normalizeUsername, parseDomains } from '../../lambdas/core/address';
import { decodeCursor, encodeCursor } from '../../lambdas/core/cursor';
import { ApiError } from '../../lambdas/core/errors';
import { INBOX_ID, MESSAGE_ID, messageIdFrom, messageTimeMs, newInboxId, newMessageId, randomUsername, hashApiKey, newApiKey, keyHint } from '../../lambdas/core/ids';
import { isExpired, isRemovable, lifetime, removalEpoch, resolveTtl, utcDay } from '../../lambdas/core/inbox';
import { BASE_PLANS, burstOf, loadPlans, ratePerSecond } from '../../lambdas/core/plans';
import { matchRoute, ROUTES } from '../../lambdas/contract/routes';
import { DEPLOYED_ROUTES } from '../../lambdas/layout/functions';
import { TokenBuckets } from '../../local/rate-limiter';
import { attachmentDownload, MAX_NAME_CHARS } from '../../lambdas/core/downloads';
import { EVENT_PREVIEW, INLINE_DETAIL_BYTES } from '../../lambdas/core/limits';
import { messageItem, recordJson } from '../../lambdas/core/message';
import { DISABLED_VERDICTS, type MessageDetail } from '../../lambdas/core/model';
import { checkWebhookUrl, forbiddenAddress, refusedAddress } from '../../lambdas/core/webhook-destinations';
import { messageReceivedPayload } from '../../lambdas/core/webhook-payloads';

const domains = parseDomains('tempmail.local,inbox.test,mailbox.test');

describe('usernames and addresses', () => {
  it('normalizes to lower case and enforces the rule', () => {
    expect(normalizeUsername('Alice.B-9_x')).toBe('alice.b-9_x');
    for (const bad of ['', '.a', 'a.', '_a', 'a_', 'a..b', 'a+b', 'a b', 'é', 'x'.repeat(65)]) expect(normalizeUsername(bad)).toBeNull();
    expect(normalizeUsername('x'.repeat(64))).toBe('x'.repeat(64));
  });

  it('routes sub-addresses and any case to the inbox address; other domains to nothing', () => {
    expect(inboxAddressFor('Alice+signup-3@INBOX.test', domains)).toBe('alice@inbox.test');
    expect(inboxAddressFor('bob@tempmail.local', domains)).toBe('bob@tempmail.local');
    expect(inboxAddressFor('bob@gmail.com', domains)).toBeNull();
    expect(inboxAddressFor('+tag@inbox.test', domains)).toBeNull();
    expect(inboxAddressFor('no-at-sign', domains)).toBeNull();
  });
});

describe('ids', () => {
  it('have the documented shapes and at least 80 random bits', () => {
    expect(newInboxId()).toMatch(INBOX_ID);
    expect(newMessageId()).toMatch(MESSAGE_ID);
    const ids = new Set(Array.from({ length: 10_000 }, newInboxId));
    expect(ids.size).toBe(10_000);
    expect(randomUsername()).toMatch(/^[a-z0-9]{10}$/);
  });

  it('message ids sort by time and derive deterministically from a seed', () => {
    const a = messageIdFrom('mail-1\ninbox', 1_700_000_000_000);
    expect(messageIdFrom('mail-1\ninbox', 1_700_000_000_000)).toBe(a);
    expect(messageIdFrom('mail-2\ninbox', 1_700_000_000_000)).not.toBe(a);
    expect(messageIdFrom('z', 1_700_000_000_001) > messageIdFrom('a', 1_700_000_000_000)).toBe(true);
    expect(messageTimeMs(a)).toBe(1_700_000_000_000);
    expect(a).toMatch(MESSAGE_ID);
  });

  it('API keys are long and random; only the hash and a hint are kept', () => {
    const key = newApiKey();
    expect(key).toMatch(/^tm_[0-9a-z]{40}$/);
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyHint(key)).not.toContain(key.slice(7, -4));
  });
});

describe('ttl and expiry', () => {
  const dev = BASE_PLANS.dev;
  it('defaults to 3600, refuses below 60 (400) and above the plan (403)', () => {
    expect(resolveTtl(undefined, dev)).toBe(3600);
    expect(resolveTtl(60, dev)).toBe(60);
    expect(resolveTtl(86_400, dev)).toBe(86_400);
    expect(() => resolveTtl(59, dev)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => resolveTtl(1.5, dev)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => resolveTtl(86_401, dev)).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => resolveTtl(60, BASE_PLANS.free)).toThrow(ApiError);
  });

  it('expires_at is created_at plus ttl exactly; expiry and removal are one grace hour apart', () => {
    const l = lifetime(Date.parse('2026-01-01T00:00:00.750Z'), 120);
    expect(l).toEqual({ created_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:02:00.000Z', expires_at_epoch: Date.parse('2026-01-01T00:02:00Z') / 1000 });
    expect(isExpired(l.expires_at_epoch, Date.parse('2026-01-01T00:01:59.999Z'))).toBe(false);
    expect(isExpired(l.expires_at_epoch, Date.parse('2026-01-01T00:02:00Z'))).toBe(true);
    expect(isRemovable(l.expires_at_epoch, Date.parse('2026-01-01T00:59:59Z'))).toBe(false);
    expect(isRemovable(l.expires_at_epoch, Date.parse('2026-01-01T01:02:00Z'))).toBe(true);
    // The removal time (DynamoDB's TTL attribute on AWS) is the first moment the data may go: never before the grace ends.
    expect(removalEpoch(l.expires_at_epoch)).toBe(Date.parse('2026-01-01T01:02:00Z') / 1000);
    expect(isRemovable(l.expires_at_epoch, removalEpoch(l.expires_at_epoch) * 1000 - 1)).toBe(false);
    expect(utcDay(Date.parse('2026-03-04T23:59:59Z'))).toBe('2026-03-04');
  });
});

describe('plans', () => {
  it('match DESIGN §3', () => {
    expect(BASE_PLANS.free.api_access).toBe(false);
    expect([BASE_PLANS.dev, BASE_PLANS.startup, BASE_PLANS.enterprise].map((p) => [p.requests_per_minute, p.emails_per_day, p.max_ttl_seconds])).toEqual([
      [60, 1_000, 86_400],
      [300, 10_000, 7 * 86_400],
      [1_000, 100_000, 30 * 86_400],
    ]);
    expect([burstOf(BASE_PLANS.dev), burstOf(BASE_PLANS.startup), burstOf(BASE_PLANS.enterprise)]).toEqual([10, 50, 167]);
    expect(ratePerSecond(BASE_PLANS.dev)).toBe(1);
  });

  it('take overrides from TEMPMAIL_PLAN_OVERRIDES and refuse unknown names', () => {
    expect(loadPlans('{"dev":{"emails_per_day":5}}').dev.emails_per_day).toBe(5);
    expect(loadPlans(undefined).dev.emails_per_day).toBe(1_000);
    expect(() => loadPlans('{"gold":{}}')).toThrow(/gold/);
    expect(() => loadPlans('{"dev":{"colour":1}}')).toThrow(/colour/);
    // An optional field, unset by default, is settable like the others.
    expect(loadPlans(undefined).dev.emails_per_inbox_per_day).toBeUndefined();
    expect(loadPlans('{"dev":{"emails_per_inbox_per_day":20,"max_inboxes":3}}').dev).toMatchObject({ emails_per_inbox_per_day: 20, max_inboxes: 3 });
  });
});

describe('route table', () => {
  it('matches literal segments before parameters, and tells 404 from 405', () => {
    expect(matchRoute('GET', '/v1/inboxes/inbox_x/messages/wait')).toMatchObject({ kind: 'route', route: { name: 'waitForMessage' } });
    expect(matchRoute('GET', '/v1/inboxes/inbox_x/messages/msg_y')).toMatchObject({ kind: 'route', route: { name: 'getMessage' }, params: { inbox_id: 'inbox_x', message_id: 'msg_y' } });
    expect(matchRoute('PUT', '/v1/inboxes')).toEqual({ kind: 'method-not-allowed', allowed: ['GET', 'POST', 'DELETE'] });
    expect(matchRoute('GET', '/v1/unknown')).toEqual({ kind: 'not-found' });
  });

  it('names each handler once and each method+path once', () => {
    expect(new Set(DEPLOYED_ROUTES.map((r) => r.handler)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(ROUTES.length);
  });
});

describe('cursor', () => {
  it('round-trips and refuses what it did not make', () => {
    const id = newMessageId();
    expect(decodeCursor(encodeCursor(id))).toBe(id);
    expect(() => decodeCursor('bm9wZQ')).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('token bucket', () => {
  it('allows the burst, then refills at the plan rate with an honest Retry-After', () => {
    let now = 0;
    const buckets = new TokenBuckets(() => now);
    const results = Array.from({ length: 12 }, () => buckets.take('k', BASE_PLANS.dev));
    expect(results.slice(0, 10)).toEqual(Array(10).fill(0));
    expect(results[10]).toBe(1);
    now += 1000;
    expect(buckets.take('k', BASE_PLANS.dev)).toBe(0);
    expect(buckets.take('other', BASE_PLANS.dev)).toBe(0);
  });

  it('serves exactly the plan rate to a key driven at five times it, once the burst is spent', () => {
    // test/reliability/rate-limit.test.ts drives a live stack so; here the clock is the test's, so the count is exact.
    let now = 0;
    const buckets = new TokenBuckets(() => now);
    const plan = { ...BASE_PLANS.dev, requests_per_minute: 600 };
    while (buckets.take('k', plan) === 0);
    let served = 0;
    // 6 s of requests at 50 a second against 10 a second: the shortened plan's "minute".
    for (let i = 1; i <= 300; i++) {
      now = i * 20;
      if (buckets.take('k', plan) === 0) served++;
    }
    expect(served).toBe(60);
  });
});

describe('message items and the message.received event', () => {
  const base = {
    id: 'msg_1',
    inbox_id: 'inb_1',
    from: 'a@example.com',
    from_name: null,
    subject: 's',
    to: 'x@example.com',
    received_at: '2026-01-01T00:00:00.000Z',
    size: 1,
    auth: DISABLED_VERDICTS,
    raw_key: 'raw',
  };
  const detail = (html: string, links: string[]): MessageDetail => ({
    text: 'Your code is 482913',
    html,
    attachments: [],
    attachment_count: 3,
    codes: ['482913'],
    links,
    links_truncated: false,
    cc: [],
    reply_to: [],
    message_id: null,
    in_reply_to: null,
    headers: [],
    headers_truncated: false,
    parse_error: null,
  });

  it('keeps codes, links and the attachment count on an item whose detail went to its body object', () => {
    const { record, body } = messageItem(base, detail('<p>x</p>'.repeat(20_000), ['https://example.com/verify?t=1']), 'body-key');
    expect(record.body_key).toBe('body-key');
    expect(record.text).toBeUndefined();
    expect(body!.codes).toEqual(['482913']);
    const event = JSON.parse(messageReceivedPayload(record, undefined, 0));
    expect(event.data.message).toMatchObject({ codes: ['482913'], links: ['https://example.com/verify?t=1'], attachments: 3 });
  });

  it("carries the mail's SMTP envelope in message.received, as the API's summary does", () => {
    const { record } = messageItem(base, detail('<p>x</p>', []), 'body-key');
    const withEnvelope = { ...record, envelope: { from: 'bounce+42@mailer.example', to: 'alice+signup@inbox.test' } };
    expect(JSON.parse(messageReceivedPayload(withEnvelope, undefined, 0)).data.message.envelope).toEqual(withEnvelope.envelope);
    expect(JSON.parse(messageReceivedPayload({ ...record, envelope: undefined }, undefined, 0)).data.message.envelope).toBeNull();
  });

  it('keeps of the links only what the event lists, within its byte budget', () => {
    const links = Array.from({ length: 1_000 }, (_, i) => `https://example.com/${String(i).padStart(4, '0')}/${'p'.repeat(1_900)}`);
    const { record } = messageItem(base, detail('<p>x</p>'.repeat(20_000), links), 'body-key');
    expect(record.links!.length).toBeGreaterThan(0);
    expect(record.links).toEqual(links.slice(0, record.links!.length));
    expect(record.links!.join('').length).toBeLessThanOrEqual(EVENT_PREVIEW.bytes);
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThan(INLINE_DETAIL_BYTES);
  });

  it('serialises an inline record once: the JSON made to size its detail is the one the store writes', () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const { record } = messageItem({ ...base, from_name: 'Ann "A" \u00e9' }, detail('<p>x</p>', ['https://example.com/a']), 'body-key');
      const json = recordJson(record);
      // Nothing serialised the record whole: only its detail (to size it) and the small rest.
      expect(stringify.mock.calls.filter(([value]) => typeof value === 'object' && value !== null && 'id' in value && 'text' in value)).toEqual([]);
      stringify.mockRestore();
      expect(json).toBe(JSON.stringify(record));
      expect(JSON.parse(json)).toEqual(record);
      // Frozen, so the kept JSON cannot go stale.
      expect(Object.isFrozen(record)).toBe(true);
    } finally {
      stringify.mockRestore();
    }
  });

  it('serialises a record it did not make, or one whose detail went to its body object, when asked', () => {
    const { record } = messageItem(base, detail('<p>x</p>'.repeat(20_000), []), 'body-key');
    expect(recordJson(record)).toBe(JSON.stringify(record));
    const other = { ...record, subject: 'changed' };
    expect(JSON.parse(recordJson(other)).subject).toBe('changed');
  });
});

describe('attachment download headers', () => {
  it('are made for any file name a mail can give, half characters included', () => {
    const pairCutByTheLength = `${'a'.repeat(MAX_NAME_CHARS - 1)}😀`;
    for (const filename of ['\ud800a.txt', 'a\udc00', '\udc00\ud800', pairCutByTheLength]) {
      const { contentDisposition } = attachmentDownload({ id: 'att_1', filename, content_type: 'text/plain' });
      expect(contentDisposition).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[\w%.!~-]+$/);
      expect(contentDisposition).toContain('%EF%BF%BD');
    }
  });
});

describe('webhook URLs', () => {
  it('are at most 2,048 characters as stored and sent, percent-encoding included', () => {
    expect(checkWebhookUrl(`https://8.8.8.8/${'a'.repeat(2_000)}`, false).href).toHaveLength(2_016);
    expect(() => checkWebhookUrl(`https://8.8.8.8/${'é'.repeat(2_000)}`, false)).toThrow(/at most 2048 characters once encoded \(12016\)/);
    expect(() => checkWebhookUrl(`https://8.8.8.8/${'a'.repeat(2_040)}`, false)).toThrow(ApiError);
  });

  it('refuse the IPv6 documentation prefixes, 2001:db8::/32 and 3fff::/20 (RFC 9637), and no global address beside them', () => {
    for (const address of ['2001:db8::1', '3fff::1', '3fff:fff:ffff::1']) expect(forbiddenAddress(address)).toMatch(/reserved/);
    expect(() => checkWebhookUrl('https://[3fff::1]/hook', false)).toThrow(/url refused/);
    // Just outside 3fff::/20, and an ordinary global address: allowed.
    for (const address of ['3fff:1000::1', '2a00:1450:4001::1']) expect(forbiddenAddress(address)).toBeNull();
  });

  it('refuse link-local addresses (instance metadata) even where private destinations are allowed, and nothing else there', () => {
    // Every IPv6 form that carries 169.254.169.254 to an IPv4 host: mapped, compatible, NAT64 (both prefixes), 6to4.
    const carried = ['::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::169.254.169.254', '64:ff9b::a9fe:a9fe', '64:ff9b:1::a9fe:a9fe', '2002:a9fe:a9fe::', '2002:a9fe:a9fe:1::5'];
    for (const address of ['169.254.169.254', '169.254.0.1', 'fe80::1', 'fd00:ec2::254', '[fe80::1%eth0]', ...carried]) {
      expect(refusedAddress(address, true)).toMatch(/is a link-local or instance metadata address, never reached$/);
      expect(refusedAddress(address, false)).not.toBeNull();
    }
    for (const address of ['127.0.0.1', '10.1.2.3', '192.168.1.1', '::1', '::', 'fd00::1', '8.8.8.8', '2002:0808:0808::', '64:ff9b::808:808', '2001:db8::a9fe:a9fe']) expect(refusedAddress(address, true)).toBeNull();
    expect(refusedAddress('127.0.0.1', false)).toBe(forbiddenAddress('127.0.0.1'));
    expect(() => checkWebhookUrl('http://169.254.169.254/latest/meta-data/', true)).toThrow(/url refused: 169\.254\.169\.254 is a link-local or instance metadata address/);
    expect(checkWebhookUrl('http://127.0.0.1:8080/hook', true).href).toBe('http://127.0.0.1:8080/hook');
  });
});
