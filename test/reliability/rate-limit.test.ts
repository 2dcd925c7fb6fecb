/**
 * Rate limiting on a live stack: a seeded dev-plan key (keys of a plan keep their limits; only the stack's own dev key
 * is unlimited by default) driven at five times its rate once its burst is spent. The window is shortened through
 * TEMPMAIL_PLAN_OVERRIDES: 600 requests a minute is "60 a minute" in 6 s. What is asserted holds at any pace (the
 * machine may be slow): never more served than the bucket refilled in the time the requests took, and most of them
 * refused. The rate's accuracy itself (60 in a 6 s "minute", not 54 nor 66) is proven on the same bucket with an
 * injected clock (test/unit/domain.test.ts, "token bucket").
 */
import { http } from '../support/http';
import { startStack, type StackHandle } from '../support/stack';

let stack: StackHandle;
beforeAll(async () => {
  stack = await startStack({ env: { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ dev: { requests_per_minute: 600 } }) } });
});
afterAll(() => stack.stop());

it('serves no more than the (shortened) plan rate to a key driven at five times it, and refuses the rest', async () => {
  const api = http(stack.apiUrl, stack.keys.dev);
  const ratePerSecond = 600 / 60;
  // Spend the burst first: what is measured is the sustained rate.
  while ((await api('GET', '/v1/domains')).status === 200);
  const intervalMs = 1000 / (5 * ratePerSecond);
  const started = Date.now();
  const windowMs = 6_000;
  let ok = 0;
  let limited = 0;
  const inflight: Promise<void>[] = [];
  for (let i = 0; Date.now() - started < windowMs; i++) {
    inflight.push(
      api('GET', '/v1/domains').then((r) => {
        if (r.status === 200) ok++;
        else if (r.status === 429) limited++;
      }),
    );
    const next = started + (i + 1) * intervalMs;
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
  }
  await Promise.all(inflight);
  const elapsed = (Date.now() - started) / 1000;
  // The bucket was empty at `started`; the last request was taken before the last answer came, so by `elapsed` at
  // the latest: at most the refill of that time (one more for a token nearly whole at the start).
  const refill = elapsed * ratePerSecond;
  console.log(`rate limit: ${ok} served, ${limited} limited in ${elapsed.toFixed(2)} s (the refill: ${refill.toFixed(1)})`);
  expect(ok).toBeGreaterThan(0);
  expect(ok).toBeLessThanOrEqual(Math.floor(refill) + 1);
  // Sent at five times the rate: whatever the pace achieved, the key was held to its rate, so most were refused.
  expect(limited).toBeGreaterThan(ok);
});

it('never throttles with TEMPMAIL_RATE_LIMITS=off (CI bursts): 200 requests at once on a dev key all answer 200', async () => {
  const unlimited = await startStack({ env: { TEMPMAIL_RATE_LIMITS: 'off' } });
  try {
    const api = http(unlimited.apiUrl, unlimited.keys.dev);
    const statuses = await Promise.all(Array.from({ length: 200 }, () => api('GET', '/v1/domains').then((r) => r.status)));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  } finally {
    await unlimited.stop();
  }
}, 60_000);
