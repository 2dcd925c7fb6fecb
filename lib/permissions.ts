/** The route table's access levels as IAM actions: each function gets what its route lists, nothing more. */
import type { Access } from '../lambdas/core/routes';

export const TABLE_ACTIONS: Record<'table:read' | 'table:write', string[]> = {
  'table:read': ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  'table:write': ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem'],
};

export const BUCKET_OBJECT_ACTIONS: Record<'bucket:read' | 'bucket:write' | 'bucket:delete', string[]> = {
  'bucket:read': ['s3:GetObject'],
  'bucket:write': ['s3:PutObject'],
  'bucket:delete': ['s3:DeleteObject'],
};

export function actionsFor(access: readonly Access[]) {
  const table = new Set<string>();
  const objects = new Set<string>();
  for (const a of access) {
    if (a === 'table:read' || a === 'table:write') TABLE_ACTIONS[a].forEach((x) => table.add(x));
    else BUCKET_OBJECT_ACTIONS[a].forEach((x) => objects.add(x));
  }
  // Listing the bucket is needed to delete a prefix and to tell "missing" from "forbidden".
  const listBucket = access.includes('bucket:read') || access.includes('bucket:delete');
  return { table: [...table].sort(), objects: [...objects].sort(), listBucket };
}
