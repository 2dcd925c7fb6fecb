/**
 * The local form's webhook dispatcher, inside `npm start`: what the table's stream, the dispatcher function and
 * SQS do on AWS, on the same use cases (lambdas/usecases/webhooks.ts).
 * - ingest and the sweep report stored messages and expired inboxes to it (ctx.events); each becomes a job per
 *   webhook, written to the store's job table before ingest moves on (so before the inbound mail is released);
 * - it runs due jobs, at most `concurrency` at once and at most a quarter of them for one account (a receiver that
 *   never answers holds its slots for the whole timeout: one account's must not hold everyone's), woken at once
 *   when one is queued, else by a short poll;
 *   retries wait in the job table with their due time, so a restart (or a crash) resumes them: after a start,
 *   every job still there is due or becomes due.
 */
import type { DeliveryJob } from '../lambdas/core/webhooks';
import type { AppContext } from '../lambdas/usecases/context';
import { deliverJob, dispatchInboxExpired, dispatchMessageReceived, dueDeliveries } from '../lambdas/usecases/webhooks';

export interface DispatcherOptions {
  /** Attempts running at once (each may hold a connection up to the timeout). */
  concurrency: number;
  log: (line: string) => void;
}

/** The longest the dispatcher sleeps when nothing wakes it: a retry is sent at most this late. */
const MAX_POLL_MS = 250;
/** Due jobs read per look at the queue, per slot: enough to find other accounts' jobs behind one account's backlog. */
const LOOK_AHEAD_PER_SLOT = 10;
/** A job whose attempt failed on our side (the store, the secret) waits this long before it is tried again. */
const FAULT_HOLD_MS = 5_000;

export class LocalWebhookDispatcher {
  private readonly running = new Map<string, Promise<void>>();
  /** account id → attempts it has running. */
  private readonly perAccount = new Map<string, number>();
  private readonly held = new Map<string, number>();
  private pumping = false;
  private again = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private stopListening: () => void = () => undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: DispatcherOptions,
  ) {}

  start(): void {
    const { ctx } = this;
    ctx.events = {
      messageStored: async (message, inbox) => {
        await dispatchMessageReceived(ctx, message, inbox.account_id);
      },
      inboxExpired: async (inbox) => {
        await dispatchInboxExpired(ctx, inbox);
      },
    };
    this.stopListening = ctx.webhooks.queue.onQueued?.(() => this.kick()) ?? (() => undefined);
    this.kick(); // jobs left by the last run
  }

  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    this.pump()
      .catch((error) => this.options.log(`[webhooks] reading the queue failed: ${(error as Error).message}`))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.kick();
        } else this.schedule();
      });
  }

  private async pump(): Promise<void> {
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return;
    const now = Date.now();
    for (const [id, until] of this.held) if (until <= now) this.held.delete(id);
    const due = await dueDeliveries(this.ctx, now, this.options.concurrency * LOOK_AHEAD_PER_SLOT + this.held.size);
    const share = Math.max(1, Math.floor(this.options.concurrency / 4));
    let started = 0;
    for (const job of due) {
      if (started === free) break;
      if (this.running.has(job.event_id) || this.held.has(job.event_id) || (this.perAccount.get(job.account_id) ?? 0) >= share) continue;
      this.run(job);
      started++;
    }
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => this.kick(), MAX_POLL_MS);
    this.timer.unref();
  }

  private run(job: DeliveryJob): void {
    const attempt = deliverJob(this.ctx, job)
      .then((outcome) => {
        if (outcome === 'retrying' || outcome === 'failed' || outcome === 'disabled') {
          this.options.log(`[webhooks] ${job.webhook_id} ${job.event_id} attempt ${job.attempt}: ${outcome}`);
        }
      })
      .catch((error) => {
        this.held.set(job.event_id, Date.now() + FAULT_HOLD_MS);
        this.options.log(`[webhooks] ${job.webhook_id} ${job.event_id} attempt ${job.attempt} could not run: ${(error as Error).message}`);
      })
      .finally(() => {
        this.running.delete(job.event_id);
        const left = (this.perAccount.get(job.account_id) ?? 1) - 1;
        if (left > 0) this.perAccount.set(job.account_id, left);
        else this.perAccount.delete(job.account_id);
        this.kick();
      });
    this.running.set(job.event_id, attempt);
    this.perAccount.set(job.account_id, (this.perAccount.get(job.account_id) ?? 0) + 1);
  }

  /** Stops taking jobs and lets the attempts under way finish (each is bounded by the delivery timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopListening();
    await Promise.allSettled([...this.running.values()]);
    this.ctx.events = undefined;
  }
}
