/**
 * Storing a message on the DynamoDB table (DESIGN §4): one transaction writes the message, counts it on its inbox
 * (which must be live), on its account's day usage (within the daily limit) and on its account's stored bytes
 * (within the storage limit). Apart from dynamo-inbox-store.ts because of what only this write needs: the retry of
 * transactions that conflict on the hot usage item.
 */
import { removalEpoch } from '../core/inbox';
import type { InboxRoute, MessageRecord } from '../core/model';
import type { PutRules } from '../core/ports';
import { cancellationCodes, failedWrites, transactNamed, type NamedWrites, type Table } from './dynamo-items';
import { expiryIs } from './dynamo-lifetime';
import { keys, TTL_ATTRIBUTE } from '../layout/table-layout';

/**
 * Storing a message updates the account's one day-usage item, so concurrent ingests of one account conflict
 * (TransactionConflict): DynamoDB cancels a transaction while another one writes the same item. Such a transaction
 * is retried here with full jitter, at most this many times in all, before the error goes to Lambda's own retries.
 * The waits add up to 66 s at worst (about half that expected), inside ingest's timeout (lib/mail-ingest.ts); in a
 * burst of 500 mails for one account the unluckiest needed 13 attempts (test/integration/dynamo-paging.test.ts).
 */
export const PUT_ATTEMPTS = 20;
const CONFLICT_BACKOFF_MS = { base: 25, cap: 5_000 };

/** InboxStore.putMessage on the table. */
export async function putMessage({ db, table }: Table, message: MessageRecord, inbox: InboxRoute, { nowEpoch, day, dailyLimit, storageLimit }: PutRules) {
  const dayEnd = Date.parse(`${day}T00:00:00Z`) / 1000 + 2 * 86_400;
  const bytes = message.stored_bytes ?? 0;
  if (storageLimit !== undefined && bytes > storageLimit) return 'storage' as const;
  // The account's bytes after this message stay within the limit: the item's value before it is at most this.
  const storageCondition = storageLimit === undefined ? {} : { ConditionExpression: 'attribute_not_exists(#bytes) OR #bytes <= :room' };
  // Named, so that a cancellation says which condition failed by name: each one is an outcome of its own.
  const writes: NamedWrites<'message' | 'inbox' | 'dailyUsage' | 'storage'> = {
    // A message goes with its inbox: the inbox's removal time is its TTL.
    message: { Put: { Item: { ...keys.message(inbox.id, message.id), ...message, [TTL_ATTRIBUTE]: removalEpoch(inbox.expires_at_epoch) }, ConditionExpression: 'attribute_not_exists(pk)' } },
    inbox: {
      Update: {
        Key: keys.inbox(inbox.id),
        UpdateExpression: bytes ? 'ADD message_count :one, stored_bytes :bytes' : 'ADD message_count :one',
        // core/inbox.ts isLiveAt: the inbox takes mail until it has expired by now.
        ConditionExpression: `attribute_exists(pk) AND ${expiryIs('>', ':now')}`,
        ExpressionAttributeValues: { ':one': 1, ':now': nowEpoch, ...(bytes ? { ':bytes': bytes } : {}) },
      },
    },
    dailyUsage: {
      Update: {
        Key: keys.usage(inbox.account_id, day),
        UpdateExpression: 'ADD emails :one SET #ttl = :purge',
        ConditionExpression: 'attribute_not_exists(emails) OR emails < :limit',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':one': 1, ':limit': dailyLimit, ':purge': dayEnd },
      },
    },
    storage: {
      Update: {
        Key: keys.storage(inbox.account_id),
        UpdateExpression: 'ADD #bytes :bytes',
        ...storageCondition,
        ExpressionAttributeNames: { '#bytes': 'bytes' },
        ExpressionAttributeValues: { ':bytes': bytes, ...(storageLimit === undefined ? {} : { ':room': storageLimit - bytes }) },
      },
    },
  };
  // Read in the writes' order: a duplicate is a duplicate whatever else failed.
  const outcomes = { message: 'duplicate', inbox: 'gone', dailyUsage: 'quota', storage: 'storage' } as const;
  for (let attempt = 1; ; attempt++) {
    try {
      await transactNamed(db, table, writes);
      return 'stored' as const;
    } catch (error) {
      const failed = failedWrites(error, writes);
      if (!failed) throw error;
      const first = (Object.keys(outcomes) as (keyof typeof outcomes)[]).find((name) => failed.has(name));
      if (first) return outcomes[first];
      if (!cancellationCodes(error)!.includes('TransactionConflict') || attempt >= PUT_ATTEMPTS) throw error;
      // Full jitter: the contenders for the hot usage item spread out instead of colliding again in step.
      const ceiling = Math.min(CONFLICT_BACKOFF_MS.cap, CONFLICT_BACKOFF_MS.base * 2 ** attempt);
      await new Promise((r) => setTimeout(r, Math.random() * ceiling));
    }
  }
}
