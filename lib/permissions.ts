/**
 * The route table's access levels as IAM actions, stated once: each function gets what its access list names on
 * our one table and bucket (and the webhook key and queues), nothing more. Scan is deliberately absent: only admin
 * tooling lists keys. Object actions are scoped by prefix: API functions reach `inboxes/` only, never the raw mail
 * SES drops in `inbound/`.
 */
import type { Access } from '../lambdas/layout/functions';
import { blobKeys } from '../lambdas/core/ports';

/** On the table itself. */
export const TABLE_ACTIONS: Record<'table:get' | 'table:query' | 'table:put' | 'table:update' | 'table:delete' | 'table:batch-write' | 'table:batch-get', readonly string[]> = {
  'table:get': ['dynamodb:GetItem'],
  'table:query': ['dynamodb:Query'],
  'table:put': ['dynamodb:PutItem'],
  'table:update': ['dynamodb:UpdateItem'],
  'table:delete': ['dynamodb:DeleteItem'],
  'table:batch-write': ['dynamodb:BatchWriteItem'],
  'table:batch-get': ['dynamodb:BatchGetItem'],
};

/** On the account index and the group index only (their ARNs, not the table's). */
export const INDEX_ACTIONS: Record<'accounts:query' | 'groups:query', readonly string[]> = {
  'accounts:query': ['dynamodb:Query'],
  'groups:query': ['dynamodb:Query'],
};

/** On the webhook key (KMS) and the delivery queues (SQS): SendMessageBatch is authorised by sqs:SendMessage. */
export const WEBHOOK_ACTIONS: Record<'secrets:seal' | 'secrets:open' | 'deliveries:send' | 'deliveries:dead-letter', readonly string[]> = {
  'secrets:seal': ['kms:Encrypt'],
  'secrets:open': ['kms:Decrypt'],
  'deliveries:send': ['sqs:SendMessage'],
  'deliveries:dead-letter': ['sqs:SendMessage'],
};

type ObjectAccess = Exclude<Access, keyof typeof TABLE_ACTIONS | keyof typeof INDEX_ACTIONS | keyof typeof WEBHOOK_ACTIONS | 'bucket:list'>;

export const BUCKET_OBJECT_ACTIONS: Record<ObjectAccess, readonly string[]> = {
  'bucket:read': ['s3:GetObject'],
  'bucket:write': ['s3:PutObject'],
  'bucket:delete': ['s3:DeleteObject'],
  'checks:cache': ['s3:PutObject'],
  'inbound:read': ['s3:GetObject'],
  'inbound:delete': ['s3:DeleteObject'],
};

/**
 * The object keys each object access applies to, as an S3 resource pattern (`*` matches any characters, `/` too): a
 * prefix and everything under it, or one kind of key in every message (the checks cache, whatever its inbox and message).
 */
export const ACCESS_OBJECTS: Record<ObjectAccess, string> = {
  'bucket:read': `${blobKeys.INBOXES_PREFIX}*`,
  'bucket:write': `${blobKeys.INBOXES_PREFIX}*`,
  'bucket:delete': `${blobKeys.INBOXES_PREFIX}*`,
  'checks:cache': blobKeys.checks('*', '*'),
  'inbound:read': `${blobKeys.INBOUND_PREFIX}*`,
  'inbound:delete': `${blobKeys.INBOUND_PREFIX}*`,
};

export interface ScopedActions {
  /** On the table ARN. */
  table: string[];
  /** On the account index's ARN. */
  accountIndex: string[];
  /** On the group index's ARN. */
  groupIndex: string[];
  /** Object actions by key pattern (ACCESS_OBJECTS, granted on arn/<pattern>). */
  objects: Record<string, string[]>;
  /** Prefixes s3:ListBucket may list (a condition on s3:prefix); empty: no ListBucket. */
  listPrefixes: string[];
  /** On the webhook secrets' KMS key. */
  key: string[];
  /** On the webhook delivery queue. */
  queue: string[];
  /** On the webhook deliveries' dead-letter queue. */
  deadLetters: string[];
}

export function actionsFor(access: readonly Access[]): ScopedActions {
  const table = new Set<string>();
  const objects: Record<string, Set<string>> = {};
  const key = new Set<string>();
  const accountIndex = new Set<string>();
  const groupIndex = new Set<string>();
  for (const a of access) {
    if (a in TABLE_ACTIONS) TABLE_ACTIONS[a as keyof typeof TABLE_ACTIONS].forEach((x) => table.add(x));
    else if (a === 'accounts:query') INDEX_ACTIONS[a].forEach((x) => accountIndex.add(x));
    else if (a === 'groups:query') INDEX_ACTIONS[a].forEach((x) => groupIndex.add(x));
    else if (a === 'bucket:list') continue;
    else if (a === 'secrets:seal' || a === 'secrets:open') WEBHOOK_ACTIONS[a].forEach((x) => key.add(x));
    else if (a === 'deliveries:send' || a === 'deliveries:dead-letter') continue;
    else BUCKET_OBJECT_ACTIONS[a as ObjectAccess].forEach((x) => (objects[ACCESS_OBJECTS[a as ObjectAccess]] ??= new Set()).add(x));
  }
  const queue = access.includes('deliveries:send') ? [...WEBHOOK_ACTIONS['deliveries:send']] : [];
  const deadLetters = access.includes('deliveries:dead-letter') ? [...WEBHOOK_ACTIONS['deliveries:dead-letter']] : [];
  // Deleting an inbox or a message lists its prefix (bucket:list), and reading needs ListBucket for a missing
  // object to be 404 rather than 403; both only ever under inboxes/.
  const listPrefixes = access.includes('bucket:read') || access.includes('bucket:list') ? [blobKeys.INBOXES_PREFIX] : [];
  return {
    table: [...table].sort(),
    accountIndex: [...accountIndex].sort(),
    groupIndex: [...groupIndex].sort(),
    objects: Object.fromEntries(Object.entries(objects).map(([prefix, set]) => [prefix, [...set].sort()])),
    listPrefixes,
    key: [...key].sort(),
    queue,
    deadLetters,
  };
}
