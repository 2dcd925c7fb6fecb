/**
 * API Gateway's throttles and quotas as the template form applies them (api-gateway.ts): the token bucket of a usage
 * plan, a per-method setting or a stage's method setting, a usage plan's quota, and how a template's settings read.
 */
import type { Dict } from './cfn-json';

/** Requests per second, and the bucket's size. */
export interface Throttle {
  rate: number;
  burst: number;
}

/** A usage plan's quota: requests per period, the week's start day by `offset`. */
export interface Quota {
  limit: number;
  period: 'DAY' | 'WEEK' | 'MONTH';
  offset: number;
}

/** A stage's method setting: its resource path (or `/*`), its method (or `*`) and its throttle. */
export interface StageThrottle {
  resourcePath: string;
  method: string;
  throttle: Throttle;
}

/** A token bucket: `rate` per second, holding at most `burst`. */
export class Bucket {
  private tokens: number;
  private at = Date.now();
  constructor(private readonly limit: Throttle) {
    this.tokens = limit.burst;
  }
  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.at) / 1000) * this.limit.rate);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * A stage method setting's resource path as the resource tree names it: the setting's key is `/` followed by the
 * resource path with each `/` escaped as `~1` (`/~1viewer~1{asset}` is `/viewer/{asset}`); `/` (the root) and `/*`
 * (every resource) stand as they are.
 */
export const methodSettingPath = (key: string): string => (key.startsWith('/~1') ? key.slice(1).replace(/~1/g, '/') : key);

export const throttleOf = (t: Dict | undefined): Throttle | undefined =>
  t && (t.RateLimit !== undefined || t.BurstLimit !== undefined) ? { rate: Number(t.RateLimit ?? 10_000), burst: Number(t.BurstLimit ?? 5_000) } : undefined;

/** The buckets and quota counts of one gateway, by key (a plan and key, a stage's method). */
export class GatewayLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly quotas = new Map<string, { window: number; used: number }>();

  constructor(private readonly stageThrottles: readonly StageThrottle[]) {}

  /** The stage's setting for this resource and method, and the key of its bucket. */
  stageThrottleFor(path: string, method: string): { key: string; throttle: Throttle } | undefined {
    // The most specific setting: this path and method, then this path, then /* with the method, then /*/*.
    const rank = (s: { resourcePath: string; method: string }) => (s.resourcePath === path ? 2 : 0) + (s.method === method ? 1 : 0);
    const applicable = this.stageThrottles.filter((s) => (s.resourcePath === path || s.resourcePath === '/*') && (s.method === method || s.method === '*'));
    const best = applicable.sort((a, b) => rank(b) - rank(a))[0];
    if (!best) return undefined;
    // A /*/* setting is each method's own limit, not one shared by all.
    return { key: `${path} ${method}`, throttle: best.throttle };
  }

  take(key: string, limit: Throttle): boolean {
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new Bucket(limit)));
    return bucket.take();
  }

  useQuota(key: string, quota: Quota): boolean {
    const now = new Date();
    const window =
      quota.period === 'DAY'
        ? Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
        : quota.period === 'WEEK'
          ? Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - ((now.getUTCDay() + 7 - quota.offset) % 7))
          : Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const state = this.quotas.get(key);
    if (!state || state.window !== window) {
      this.quotas.set(key, { window, used: 1 });
      return quota.limit >= 1;
    }
    if (state.used >= quota.limit) return false;
    state.used++;
    return true;
  }
}
