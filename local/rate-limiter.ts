/** The local stand-in for API Gateway usage-plan throttling: a token bucket per key, sized by the plan table. */
import { burstOf, ratePerSecond, type Plan } from '../lambdas/core/plans';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Takes one token; returns 0 when allowed, else the whole seconds to wait (for Retry-After). */
  take(key: string, plan: Plan): number {
    const rate = ratePerSecond(plan);
    const burst = burstOf(plan);
    const now = this.now();
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
}
