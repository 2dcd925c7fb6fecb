/** Creates the table (with TTL and its index) and the bucket when absent: the local equivalent of the CDK storage construct. */
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import { ACCOUNT_INDEX, GROUP_INDEX, TTL_ATTRIBUTE } from '../lambdas/layout/table-layout';
import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';

const gsi = (index: typeof ACCOUNT_INDEX | typeof GROUP_INDEX): GlobalSecondaryIndex => ({
  IndexName: index.name,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' },
    { AttributeName: index.sortKey, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projected] },
});
const INDEXES = [gsi(ACCOUNT_INDEX), gsi(GROUP_INDEX)];
const indexAttributes = [
  { AttributeName: ACCOUNT_INDEX.partitionKey, AttributeType: 'S' as const },
  { AttributeName: GROUP_INDEX.partitionKey, AttributeType: 'S' as const },
  { AttributeName: ACCOUNT_INDEX.sortKey, AttributeType: 'S' as const },
];

export async function ensureTable(db: DynamoDBClient, table: string): Promise<void> {
  try {
    const { Table } = await db.send(new DescribeTableCommand({ TableName: table }));
    // A data folder from before an index: add it (DynamoDB Local builds it from the items at once; inboxes made
    // before it carry no key of it and are not listed, as on AWS: lambdas/layout/table-layout.ts). One at a time,
    // as DynamoDB takes them.
    for (const index of INDEXES) {
      if (Table?.GlobalSecondaryIndexes?.some((existing) => existing.IndexName === index.IndexName)) continue;
      const keyNames = new Set(index.KeySchema!.map((k) => k.AttributeName));
      const AttributeDefinitions = indexAttributes.filter((a) => keyNames.has(a.AttributeName));
      await db.send(new UpdateTableCommand({ TableName: table, AttributeDefinitions, GlobalSecondaryIndexUpdates: [{ Create: index }] }));
    }
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  await db.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        ...indexAttributes,
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: INDEXES,
    }),
  );
  // DynamoDB Local accepts the TTL setting but never deletes: the local sweep does (local/sweep.ts).
  await db.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }));
}

export async function ensureBucket(s3: S3Client, bucket: string): Promise<void> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  }
}
