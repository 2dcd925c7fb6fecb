/**
 * Rate-limit accuracy: a seeded dev-plan key (keys of a plan keep their limits; only the stack's own dev key is unlimited by default) driven at five times its rate is served at its rate (±10%) once the burst is
 * spent. The window is shortened through TEMPMAIL_PLAN_OVERRIDES: 600 requests a minute is "60 a minute" in 6 s.
 */
import { http } from '../support/http';
import { startStack, type StackHandle } from '../support/stack';

let stack: StackHandle;
beforeAll(async () => {
  stack = await startStack({ env: { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ dev: { requests_per_minute: 600 } }) } });
});
afterAll(() => stack.stop());

it('serves 60 ± 10% requests per (shortened) minute at five times the rate', async () => {
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
  const expected = elapsed * ratePerSecond; // 60 in a 6 s "minute"
  console.log(`rate limit: ${ok} served, ${limited} limited in ${elapsed.toFixed(2)} s (expected ${expected.toFixed(1)})`);
  expect(ok).toBeGreaterThanOrEqual(Math.floor(expected * 0.9));
  expect(ok).toBeLessThanOrEqual(Math.ceil(expected * 1.1));
  expect(limited).toBeGreaterThan(3 * ok);
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
