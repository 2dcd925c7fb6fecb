/**
 * DynamoDB Local never expires items, so the local stack sweeps: an inbox is removed (items and bucket prefix)
 * one grace period after it expired, as DynamoDB TTL and S3 lifecycle do on AWS.
 */
import { REMOVAL_GRACE_SECONDS } from '../lambdas/core/inbox';
import type { AppContext } from '../lambdas/usecases/context';
import { removeInbox } from '../lambdas/usecases/inboxes';

export async function sweepExpired(ctx: AppContext): Promise<number> {
  const cutoff = Math.floor(ctx.now() / 1000) - REMOVAL_GRACE_SECONDS;
  const expired = await ctx.stores.inboxes.inboxesExpiredBy(cutoff);
  for (const inbox of expired) await removeInbox(ctx, inbox);
  return expired.length;
}

export function startSweeper(ctx: AppContext, intervalMs: number, onError: (e: unknown) => void): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepExpired(ctx)
      .catch(onError)
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
