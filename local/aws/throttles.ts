/**
 * API Gateway's throttles as the template form applies them (api-gateway.ts): the token bucket of a usage plan, a
 * per-method setting or a stage's method setting, and how a template's settings read.
 */
import type { Dict } from './cfn-json';

/** Requests per second, and the bucket's size. */
export interface Throttle {
  rate: number;
  burst: number;
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
