/** Runs the expiry sweep use case periodically inside the local stack; each pass is an input (Stores.askOncePerInput). */
import type { AppContext } from '../lambdas/usecases/context';
import { sweepExpired } from '../lambdas/usecases/inboxes';

export function startSweeper(ctx: AppContext, intervalMs: number, onError: (e: unknown) => void, inputArrived: () => void = () => undefined): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    inputArrived();
    sweepExpired(ctx)
      .catch(onError)
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
