/**
 * The AWS sender: SQS → one attempt per job (lambdas/usecases/webhooks.ts deliverJob), in parallel within a batch.
 * A job not yet due is a link in a chain of delayed messages (SQS delays stop at 15 minutes; the schedule waits up
 * to 10 h): it goes back on the queue with the time that remains. A job whose attempt could not run (the table,
 * KMS) is reported as failed, so SQS makes it visible again; after five receives the redrive policy moves it to
 * the dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DeliveryJob } from '../core/webhooks';
import { logger } from '../app/logger';
import { currentContext } from '../app/current';
import { deliverJob } from '../usecases/webhooks';

/** A job this close to its due time is sent now rather than delayed again. */
const EARLY_MS = 1_000;

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const ctx = currentContext();
  const results = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const job = JSON.parse(record.body) as DeliveryJob;
        if (job.due_at_ms - ctx.now() > EARLY_MS) {
          await ctx.webhooks.queue.retry(job);
          return null;
        }
        const outcome = await deliverJob(ctx, job);
        if (outcome !== 'delivered') logger.info('webhook attempt', { webhookId: job.webhook_id, eventId: job.event_id, attempt: job.attempt, outcome });
        return null;
      } catch (error) {
        logger.error('webhook attempt could not run; SQS will retry it', { messageId: record.messageId, error: error as Error });
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: results.filter((r): r is { itemIdentifier: string } => r !== null) };
};
