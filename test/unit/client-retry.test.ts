/**
 * The client's own logic with a stand-in fetch and a fake clock: waiting past the wait endpoint's 25 s in several
 * calls, and retrying 429/503 after Retry-After within its bounds. The same behaviour against a live stack is in
 * test/integration/client-package.test.ts.
 */
import { TempMailApiError, TempMailClient } from '../../client/src';

interface Call {
  method: string;
  url: URL;
  at: number;
}

/** A fetch that answers from a script, one entry per call (the last one repeats), and records each call. */
function scriptedFetch(script: ((call: Call) => Response | Promise<Response>)[]) {
  const calls: Call[] = [];
  const fetchImpl = (async (input: URL, init?: RequestInit) => {
    const call = { method: init?.method ?? 'GET', url: new URL(input), at: Date.now() };
    calls.push(call);
    return script[Math.min(calls.length - 1, script.length - 1)](call);
  }) as unknown as typeof fetch;
  return { calls, fetchImpl };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const throttled = (retryAfter: string) => json(429, { error: { code: 429, message: 'rate limit exceeded' } }, { 'Retry-After': retryAfter });
const unavailable = () => json(503, { error: { code: 503, message: 'service temporarily unavailable' } }, { 'Retry-After': '1' });
/** The wait endpoint: holds for its `timeout`, then times out. */
const holdThenTimeOut = (call: Call) =>
  new Promise<Response>((resolve) => setTimeout(() => resolve(json(200, { message: null, timed_out: true })), Number(call.url.searchParams.get('timeout')) * 1000));

beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

it('waitForMessage loops the 25-second endpoint up to the caller\'s timeout', async () => {
  const { calls, fetchImpl } = scriptedFetch([holdThenTimeOut]);
  const client = new TempMailClient({ apiKey: 'k', fetch: fetchImpl });
  const result = client.waitForMessage('inbox_x', { timeout: 60, after: 'msg_1', subject: 'code' });
  await jest.advanceTimersByTimeAsync(61_000);
  expect(await result).toEqual({ message: null, timed_out: true });
  expect(calls.map((c) => c.url.searchParams.get('timeout'))).toEqual(['25', '25', '10']);
  expect(calls.every((c) => c.url.searchParams.get('after') === 'msg_1' && c.url.searchParams.get('subject') === 'code')).toBe(true);
});

it('waitForMessage answers with the first message found', async () => {
  const message = { id: 'msg_2', subject: 'code' };
  const { calls, fetchImpl } = scriptedFetch([holdThenTimeOut, () => json(200, { message, timed_out: false })]);
  const result = new TempMailClient({ apiKey: 'k', fetch: fetchImpl }).waitForMessage('inbox_x', { timeout: 120 });
  await jest.advanceTimersByTimeAsync(26_000);
  expect(await result).toEqual({ message, timed_out: false });
  expect(calls).toHaveLength(2);
});

it('retries 429 after Retry-After, then succeeds', async () => {
  const { calls, fetchImpl } = scriptedFetch([() => throttled('2'), () => throttled('3'), () => json(200, { domains: ['a.test'] })]);
  const result = new TempMailClient({ apiKey: 'k', fetch: fetchImpl }).listDomains();
  await jest.advanceTimersByTimeAsync(5_000);
  expect(await result).toEqual({ domains: ['a.test'] });
  expect(calls.map((c) => c.at - calls[0].at)).toEqual([0, 2_000, 5_000]);
});

it('gives up after the configured number of retries, with the last error', async () => {
  const { calls, fetchImpl } = scriptedFetch([() => throttled('1')]);
  const result = new TempMailClient({ apiKey: 'k', fetch: fetchImpl, retry: { attempts: 2 } }).listDomains().catch((e) => e);
  await jest.advanceTimersByTimeAsync(3_000);
  expect(await result).toMatchObject({ status: 429, retryAfter: 1 });
  expect(calls).toHaveLength(3);
});

it('does not wait longer than maxDelayMs: a longer Retry-After is thrown at once', async () => {
  const { calls, fetchImpl } = scriptedFetch([() => throttled('60')]);
  const error = await new TempMailClient({ apiKey: 'k', fetch: fetchImpl, retry: { maxDelayMs: 30_000 } }).listDomains().catch((e) => e);
  expect(error).toBeInstanceOf(TempMailApiError);
  expect(error).toMatchObject({ status: 429, retryAfter: 60 });
  expect(calls).toHaveLength(1);
});

it('retries 503 for reads and deletes, never for POST (it may have created the inbox)', async () => {
  const get = scriptedFetch([unavailable, () => json(200, { domains: [] })]);
  const read = new TempMailClient({ apiKey: 'k', fetch: get.fetchImpl }).listDomains();
  await jest.advanceTimersByTimeAsync(1_000);
  expect(await read).toEqual({ domains: [] });
  const post = scriptedFetch([unavailable]);
  await expect(new TempMailClient({ apiKey: 'k', fetch: post.fetchImpl }).createInbox()).rejects.toMatchObject({ status: 503 });
  expect(post.calls).toHaveLength(1);
});
