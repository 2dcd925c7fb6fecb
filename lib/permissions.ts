/**
 * The route table's access levels as IAM actions, stated once: each function gets what its access list names on
 * our one table and bucket, nothing more. Scan is deliberately absent: only admin tooling lists keys.
 */
import type { Access } from '../lambdas/core/routes';

export const TABLE_ACTIONS: Record<'table:read' | 'table:write', readonly string[]> = {
  'table:read': ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem'],
  'table:write': ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem'],
};

export const BUCKET_OBJECT_ACTIONS: Record<'bucket:read' | 'bucket:write' | 'bucket:delete', readonly string[]> = {
  'bucket:read': ['s3:GetObject'],
  'bucket:write': ['s3:PutObject'],
  'bucket:delete': ['s3:DeleteObject'],
};

/** On the webhook key (KMS) and the delivery queues (SQS): SendMessageBatch is authorised by sqs:SendMessage. */
export const WEBHOOK_ACTIONS: Record<'secrets:seal' | 'secrets:open' | 'deliveries:send' | 'deliveries:dead-letter', readonly string[]> = {
  'secrets:seal': ['kms:Encrypt'],
  'secrets:open': ['kms:Decrypt'],
  'deliveries:send': ['sqs:SendMessage'],
  'deliveries:dead-letter': ['sqs:SendMessage'],
};

export interface ScopedActions {
  /** On the table ARN. */
  table: string[];
  /** On the bucket's objects (arn/*). */
  objects: string[];
  /** s3:ListBucket on the bucket ARN. */
  listBucket: boolean;
  /** On the webhook secrets' KMS key. */
  key: string[];
  /** On the webhook delivery queue. */
  queue: string[];
  /** On the webhook deliveries' dead-letter queue. */
  deadLetters: string[];
}

export function actionsFor(access: readonly Access[]): ScopedActions {
  const table = new Set<string>();
  const objects = new Set<string>();
  const key = new Set<string>();
  for (const a of access) {
    if (a === 'table:read' || a === 'table:write') TABLE_ACTIONS[a].forEach((x) => table.add(x));
    else if (a === 'secrets:seal' || a === 'secrets:open') WEBHOOK_ACTIONS[a].forEach((x) => key.add(x));
    else if (a === 'deliveries:send' || a === 'deliveries:dead-letter') continue;
    else BUCKET_OBJECT_ACTIONS[a].forEach((x) => objects.add(x));
  }
  const queue = access.includes('deliveries:send') ? [...WEBHOOK_ACTIONS['deliveries:send']] : [];
  const deadLetters = access.includes('deliveries:dead-letter') ? [...WEBHOOK_ACTIONS['deliveries:dead-letter']] : [];
  // Reading needs ListBucket so a missing object is 404 (not 403); deleting an inbox lists its prefix.
  const listBucket = access.includes('bucket:read') || access.includes('bucket:delete');
  return { table: [...table].sort(), objects: [...objects].sort(), listBucket, key: [...key].sort(), queue, deadLetters };
}
