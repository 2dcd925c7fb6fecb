/**
 * The local stand-in for API Gateway usage-plan throttling: a token bucket per key, sized by the plan table; the
 * download links' limits (local/gateway-downloads.ts) use the same buckets with sizes of their own.
 */
import { burstOf, ratePerSecond, type Plan } from '../lambdas/core/plans';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Buckets kept before full ones are dropped (a full bucket is what a new one would be): client addresses are many. */
const PRUNE_AT = 10_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Takes one token; returns 0 when allowed, else the whole seconds to wait (for Retry-After). */
  take(key: string, plan: Plan): number {
    return this.takeAt(key, ratePerSecond(plan), burstOf(plan));
  }

  /** `take` with a bucket of `burst` tokens refilled at `rate` per second. */
  takeAt(key: string, rate: number, burst: number): number {
    const now = this.now();
    if (this.buckets.size >= PRUNE_AT && !this.buckets.has(key)) this.prune(now, rate, burst);
    const bucket = this.buckets.get(key) ?? { tokens: burst, updatedMs: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * rate);
    bucket.updatedMs = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return rate > 0 ? Math.max(1, Math.ceil((1 - bucket.tokens) / rate)) : 60;
  }

  private prune(now: number, rate: number, burst: number): void {
    for (const [key, bucket] of this.buckets) if (bucket.tokens + ((now - bucket.updatedMs) / 1000) * rate >= burst) this.buckets.delete(key);
  }
}
