/**
 * The table's stream → an inbox's objects deleted. DynamoDB's TTL removes an expired inbox's items but no object, and
 * the bucket's lifecycle rule is one expiry for every plan (the longest inbox a plan allows, about a month): without
 * this, a 1-hour inbox's raw mail and attachments stayed a month more. The event source mapping passes only REMOVEs
 * of inbox items (lib/cleanup.ts), by TTL or by DELETE /v1/inboxes (which deleted the objects already: listing its
 * prefix again finds nothing); they are checked again here. The lifecycle rule stays as the backstop.
 * An inbox TTL removed also gives its stored bytes back to its account (storage quota; OldImage carries them).
 * Records that fail are reported back (partial batch response), so only they are retried.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../app/logger';
import { currentContext } from '../app/current';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { inboxFromItem, INBOX_SK, keys, TTL_PRINCIPAL } from '../layout/table-layout';
import type { AppContext } from '../usecases/context';
import { releaseExpiredInboxStorage, removeInboxObjects } from '../usecases/inboxes';

/** The inbox item's partition key prefix, from the table layout (lib/cleanup.ts filters on its sort key, INBOX_SK). */
const INBOX_PK_PREFIX = keys.inbox('').pk;

/** The id of the inbox a record removed, or null for any other record. */
export function removedInbox(record: DynamoDBRecord): string | null {
  const pk = record.dynamodb?.Keys?.pk?.S ?? '';
  if (record.eventName !== 'REMOVE' || record.dynamodb?.Keys?.sk?.S !== INBOX_SK || !pk.startsWith(INBOX_PK_PREFIX)) return null;
  return pk.slice(INBOX_PK_PREFIX.length);
}

export async function cleanRecord(ctx: AppContext, record: DynamoDBRecord): Promise<number> {
  const inboxId = removedInbox(record);
  if (!inboxId) return 0;
  const deleted = await removeInboxObjects(ctx, inboxId);
  // Removed by TTL: its stored bytes leave its account's storage quota (last, so a failure above retries both).
  const byTtl = (record as { userIdentity?: { principalId?: string } }).userIdentity?.principalId === TTL_PRINCIPAL;
  const inbox = inboxFromItem(unmarshall((record.dynamodb?.OldImage ?? {}) as Record<string, AttributeValue>));
  if (byTtl && inbox?.account_id) await releaseExpiredInboxStorage(ctx, inbox);
  return deleted;
}

export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const ctx = currentContext();
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    try {
      const deleted = await cleanRecord(ctx, record);
      if (deleted > 0) logger.info('objects of a removed inbox deleted', { inboxId: removedInbox(record), deleted });
    } catch (error) {
      logger.error('deleting the objects of a removed inbox failed; the record will be retried', { eventId: record.eventID, error: error as Error });
      // Stream batches are ordered: report this one and stop, the rest are retried after it.
      failures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      break;
    }
  }
  return { batchItemFailures: failures };
};
