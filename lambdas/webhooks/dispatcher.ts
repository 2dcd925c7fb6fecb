/**
 * The AWS dispatcher: the table's stream → deliveries on the SQS queue. The event source mapping's filters pass
 * only message inserts and inbox items removed by TTL (lib/webhooks.ts); they are checked again here. Why the
 * stream and not a call from ingest: the stream record exists exactly when the message item was written, so an
 * event is never lost between the write and a send, and ingest stays as fast as before.
 * `inbox.expired` comes from DynamoDB's TTL deletion of the inbox item (free, exact, no scan or index), which
 * happens after its removal time (expiry plus the grace: lambdas/layout/table-layout.ts) with a delay DynamoDB does
 * not bound (usually minutes to hours, within a few days); locally the sweep reports it an hour after expiry. A scheduled scan would be timelier but costs a read of every inbox.
 * Records that fail are reported back (partial batch response), so only they are retried.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { MessageRecord } from '../core/model';
import { logger } from '../app/logger';
import { inboxFromItem, INBOX_SK, MESSAGE_SK_PREFIX, TTL_ATTRIBUTE, TTL_PRINCIPAL } from '../layout/table-layout';
import { currentContext } from '../app/current';
import type { AppContext } from '../usecases/context';
import { dispatchInboxExpired, dispatchMessageReceived } from '../usecases/webhooks';

const image = <T>(attrs: Record<string, unknown> | undefined): T => {
  const { pk: _pk, sk: _sk, ...rest } = unmarshall((attrs ?? {}) as Record<string, AttributeValue>);
  return rest as T;
};

export async function dispatchRecord(ctx: AppContext, record: DynamoDBRecord): Promise<number> {
  const sk = record.dynamodb?.Keys?.sk?.S ?? '';
  if (record.eventName === 'INSERT' && sk.startsWith(MESSAGE_SK_PREFIX)) {
    const { [TTL_ATTRIBUTE]: _ttl, ...message } = image<MessageRecord & Record<string, unknown>>(record.dynamodb?.NewImage);
    return dispatchMessageReceived(ctx, message as MessageRecord);
  }
  const byTtl = (record as { userIdentity?: { principalId?: string } }).userIdentity?.principalId === TTL_PRINCIPAL;
  if (record.eventName === 'REMOVE' && sk === INBOX_SK && byTtl) {
    const inbox = inboxFromItem(unmarshall((record.dynamodb?.OldImage ?? {}) as Record<string, AttributeValue>))!;
    // TTL also removes what a DELETE left: that inbox was deleted, not expired.
    return inbox.deleting ? 0 : dispatchInboxExpired(ctx, inbox);
  }
  return 0;
}

export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const ctx = currentContext();
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    try {
      await dispatchRecord(ctx, record);
    } catch (error) {
      logger.error('webhook dispatch failed; the record will be retried', { eventId: record.eventID, error: error as Error });
      // Stream batches are ordered: report this one and stop, the rest are retried after it.
      failures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      break;
    }
  }
  return { batchItemFailures: failures };
};
