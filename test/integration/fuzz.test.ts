/**
 * Bad input: fast-check throws thousands of generated bodies, paths, query strings and headers at every endpoint.
 * Every answer is below 500 and, when an error, in the error format; nothing hangs.
 */
import fc from 'fast-check';
import { ROUTES } from '../../lambdas/contract/routes';
import { eventually, sendMail } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';

let stack: StackHandle;
let inboxId: string;
let waitInboxId: string;
let tried = 0;
let slowest = { ms: 0, request: '' };

beforeAll(async () => {
  // A plan limit high enough that the fuzzer reaches the handlers instead of the token bucket.
  stack = await startStack({ env: { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ enterprise: { requests_per_minute: 10_000_000 } }) } });
  const res = await fetch(`${stack.apiUrl}/v1/inboxes`, { method: 'POST', headers: { 'X-API-Key': stack.keys.enterprise } });
  inboxId = ((await res.json()) as { id: string }).id;
  // The wait routes get an inbox of their own holding one message, so that a wait with valid input (GET, or POST with
  // no conditions) answers at once instead of holding its default 20 s (held waits had the run time out), and the
  // fuzzer's DELETEs on the other routes never empty it.
  const waits = await fetch(`${stack.apiUrl}/v1/inboxes`, { method: 'POST', headers: { 'X-API-Key': stack.keys.enterprise } });
  const inbox = (await waits.json()) as { id: string; email: string };
  waitInboxId = inbox.id;
  await sendMail(stack.smtpPort, { from: 'fuzz@example.com', to: inbox.email, subject: 'fuzz', text: 'x' });
  await eventually(async () => {
    const list = await fetch(`${stack.apiUrl}/v1/inboxes/${waitInboxId}/messages`, { headers: { 'X-API-Key': stack.keys.enterprise } });
    return ((await list.json()) as { messages: unknown[] }).messages.length > 0;
  }, 20_000, 'the seeded message');
});
afterAll(async () => {
  await stack.stop();
  console.log(`fuzz: ${tried} generated requests sent; slowest ${slowest.ms} ms (${slowest.request})`);
});

async function send(method: string, path: string, body: string | undefined, headers: Record<string, string>) {
  tried++;
  const started = performance.now();
  const res = await fetch(`${stack.apiUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  const ms = Math.round(performance.now() - started);
  if (ms > slowest.ms) slowest = { ms, request: `${method} ${path.slice(0, 120)} → ${res.status}` };
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) {
    const parsed = JSON.parse(text);
    expect(parsed).toEqual({ error: { code: res.status, message: expect.any(String) } });
  }
  return res.status;
}

const segment = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('inbox_00000000000000000000', 'msg_00000000000000000000000000', '..', '%00', '%E0%A4%A', '__proto__', 'constructor', '%2F', '\u0000'),
  fc.string({ unit: 'binary', maxLength: 10 }),
);

const anyJson = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.string({ maxLength: 200 }),
  fc.constant('{"__proto__": {"ttl": 60}}'),
  fc.constant('{"constructor": {"prototype": {"x": 1}}}'),
  fc.constant('['.repeat(5000) + ']'.repeat(5000)),
  fc.record({ domain: fc.anything(), username: fc.anything(), ttl: fc.anything() }, { requiredKeys: [] }).map((v) => JSON.stringify(v) ?? '{}'),
);

// The run is bounded by time as well as by count: on a loaded CI machine 2,500 runs took past the test's timeout
// (2,769 requests in 60 s, once). It stops after RUN_BUDGET_MS without failing, and then must have covered MIN_RUNS.
const RUN_BUDGET_MS = 45_000;
const MIN_RUNS = 400;

it('never answers 5xx to generated requests on every route', async () => {
  const details = await fc.check(
    fc.asyncProperty(
      fc.constantFrom(...ROUTES),
      fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH'),
      fc.array(segment, { maxLength: 2 }),
      fc.dictionary(fc.constantFrom('limit', 'cursor', 'timeout', 'after', 'from', 'subject', 'x', '__proto__'), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
      fc.option(anyJson, { nil: undefined }),
      fc.boolean(),
      async (route, method, extra, query, body, realId) => {
        const real = route.path.endsWith('/wait') ? waitInboxId : inboxId;
        const params = { inbox_id: realId ? real : extra[0] ?? 'x', message_id: extra[1] ?? 'msg_x' };
        const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name as keyof typeof params]));
        // A GET wait whose filter matches nothing holds for its default 20 s: it gets timeout=1 unless the fuzzer
        // chose a timeout, so the run spends its budget on requests, not on held waits.
        const held = route.path.endsWith('/wait') && !('timeout' in query) ? { ...query, timeout: '1' } : query;
        const qs = new URLSearchParams(held).toString();
        const withBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
        await send(method, `${path}${qs ? `?${qs}` : ''}`, withBody ? body : undefined, {
          'X-API-Key': stack.keys.enterprise,
          'Content-Type': 'application/json',
        });
      },
    ),
    { numRuns: 2500, interruptAfterTimeLimit: RUN_BUDGET_MS, markInterruptAsFailure: false },
  );
  if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? 'the property failed');
  expect(details.numRuns).toBeGreaterThanOrEqual(MIN_RUNS);
}, RUN_BUDGET_MS + 45_000);

it('answers odd unicode, header abuse and bodies over 1 MB within the error format', async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 80 }), async (name) => {
      await send('POST', '/v1/inboxes', JSON.stringify({ username: name }), { 'X-API-Key': stack.keys.enterprise });
    }),
    { numRuns: 300 },
  );
  expect(await send('POST', '/v1/inboxes', JSON.stringify({ username: 'x'.repeat(1_100_000) }), { 'X-API-Key': stack.keys.enterprise })).toBe(413);
  expect(await send('GET', '/v1/domains', undefined, { 'X-API-Key': 'x'.repeat(4000) })).toBe(401);
  expect(await send('GET', '/v1/domains', undefined, { 'X-API-Key': '' })).toBe(401);
  expect(await send('POST', '/v1/inboxes', '{"ttl": 60}', { 'X-API-Key': stack.keys.enterprise, 'Content-Type': 'text/plain' })).toBe(201);
});
