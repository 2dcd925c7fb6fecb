/**
 * Where deliveries wait (the DeliveryQueue port):
 * - StoreDeliveryQueue, the local form: the store's job table (SQLite or DynamoDB Local), so a pending retry
 *   survives a restart; its `onQueued` listeners wake the local dispatcher at once instead of at its next poll.
 * - SqsDeliveryQueue, AWS: one SQS message per attempt, delayed until it is due. SQS delays stop at 15 minutes, so a
 *   longer wait (the schedule goes up to 10 h) is a chain of delayed messages: the sender puts back a job that is
 *   not yet due with the time that remains (lambdas/webhooks/sender.ts). EventBridge Scheduler could hold the long
 *   waits in one schedule each, but at $1 per million schedules plus a role and a cleanup per delivery it buys
 *   nothing over a few re-sent messages at $0.40 per million.
 */
import type { DeliveryQueue, WebhookStore } from '../core/ports';
import type { DeliveryJob } from '../core/webhooks';

export class StoreDeliveryQueue implements DeliveryQueue {
  private readonly listeners = new Set<() => void>();
  constructor(private readonly store: WebhookStore) {}

  onQueued(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private queued(): void {
    for (const listener of this.listeners) listener();
  }

  async enqueue(jobs: DeliveryJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.store.putJobs(jobs);
    this.queued();
  }

  async retry(job: DeliveryJob): Promise<void> {
    await this.store.rescheduleJob(job);
    this.queued();
  }

  async done(job: DeliveryJob): Promise<void> {
    await this.store.deleteJob(job.event_id);
  }

  async deadLetter(): Promise<void> {
    // The delivery records say what happened; the webhook is disabled. Nothing else to keep locally.
  }
}

/** SQS's longest message delay. */
export const MAX_SQS_DELAY_SECONDS = 900;
export const delaySecondsFor = (job: DeliveryJob, nowMs: number): number =>
  Math.max(0, Math.min(MAX_SQS_DELAY_SECONDS, Math.ceil((job.due_at_ms - nowMs) / 1000)));

export class SqsDeliveryQueue implements DeliveryQueue {
  private client?: import('@aws-sdk/client-sqs').SQSClient;
  constructor(
    private readonly queueUrl: string | undefined,
    private readonly deadLetterUrl: string | undefined,
  ) {}

  private sqs() {
    const sdk = require('@aws-sdk/client-sqs') as typeof import('@aws-sdk/client-sqs');
    this.client ??= new sdk.SQSClient({ maxAttempts: 3 });
    return { sdk, client: this.client };
  }

  private url(which: 'queue' | 'dead-letter'): string {
    const url = which === 'queue' ? this.queueUrl : this.deadLetterUrl;
    if (!url) throw new Error(`WEBHOOK_${which === 'queue' ? 'QUEUE' : 'DLQ'}_URL is not set: this function may not queue deliveries`);
    return url;
  }

  async enqueue(jobs: DeliveryJob[]): Promise<void> {
    const { sdk, client } = this.sqs();
    const now = Date.now();
    for (let i = 0; i < jobs.length; i += 10) {
      const batch = jobs.slice(i, i + 10);
      const out = await client.send(
        new sdk.SendMessageBatchCommand({
          QueueUrl: this.url('queue'),
          Entries: batch.map((job, n) => ({ Id: String(n), MessageBody: JSON.stringify(job), DelaySeconds: delaySecondsFor(job, now) })),
        }),
      );
      if (out.Failed?.length) throw new Error(`SQS refused ${out.Failed.length} deliveries: ${out.Failed[0].Code} ${out.Failed[0].Message ?? ''}`);
    }
  }

  retry(job: DeliveryJob): Promise<void> {
    return this.enqueue([job]);
  }

  async done(): Promise<void> {
    // The sender's successful return deletes the SQS message.
  }

  async deadLetter(job: DeliveryJob): Promise<void> {
    const { sdk, client } = this.sqs();
    await client.send(new sdk.SendMessageCommand({ QueueUrl: this.url('dead-letter'), MessageBody: JSON.stringify(job) }));
  }
}
