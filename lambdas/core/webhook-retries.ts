/**
 * The retry rule of webhook deliveries: what happens after an attempt (delivered, retry later, disable), the default
 * schedule, and how much of an answer is kept.
 */
/**
 * Seconds to wait before each retry: the schedule Standard Webhooks suggests (5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h): 8 attempts over 27.6 hours, so a receiver that is down for most of a day still gets every event.
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** An attempt gives up after this long without a complete answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Delivery records are kept this long (a TTL on AWS, a purge locally). */
export const DELIVERY_RECORD_SECONDS = 7 * 86_400;
export const RESPONSE_EXCERPT_BYTES = 256;
/** GET .../deliveries shows at most this many attempts, newest first. */
export const MAX_DELIVERIES_LISTED = 100;

export type AttemptResult = { status: number; excerpt: string | null; durationMs: number } | { error: string; durationMs: number };

export type AttemptDecision =
  | { kind: 'delivered' }
  | { kind: 'retry'; afterSeconds: number }
  | { kind: 'disable'; reason: string };

/** Any 2xx is success; 410 Gone disables at once; anything else is retried until the schedule is used up. */
export function afterAttempt(result: AttemptResult, attempt: number, schedule: readonly number[]): AttemptDecision {
  if ('status' in result && result.status >= 200 && result.status < 300) return { kind: 'delivered' };
  if ('status' in result && result.status === 410) return { kind: 'disable', reason: 'the endpoint answered 410 Gone' };
  if (attempt <= schedule.length) return { kind: 'retry', afterSeconds: schedule[attempt - 1] };
  const total = schedule.reduce((a, b) => a + b, 0);
  const last = 'status' in result ? `HTTP ${result.status}` : result.error;
  return { kind: 'disable', reason: `every attempt failed (${attempt} attempts over ${describeSeconds(total)}; the last: ${last})` };
}

function describeSeconds(s: number): string {
  if (s >= 3600) return `${Math.round((s / 3600) * 10) / 10} h`;
  if (s >= 60) return `${Math.round(s / 60)} min`;
  return `${s} s`;
}

/** `1,2,4` → [1, 2, 4]: the local setting that replaces the schedule (tests shorten it). */
export function parseRetrySchedule(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d{1,6}$/.test(p))) throw new Error(`a retry schedule is comma-separated whole seconds, e.g. 1,2,4; got "${value}"`);
  return parts.map(Number);
}

/** Printable, short: nothing of a response beyond RESPONSE_EXCERPT_BYTES is kept. */
export function responseExcerpt(body: Buffer): string | null {
  if (body.length === 0) return null;
  return body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replace(/\uFFFD+$/, '').replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '');
}
