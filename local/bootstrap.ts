/** Creates the table (with TTL and its index) and the bucket when absent: the local equivalent of the CDK storage construct. */
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import { ACCOUNT_INDEX, TTL_ATTRIBUTE } from '../lambdas/layout/table-layout';
import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';

const accountIndex: GlobalSecondaryIndex = {
  IndexName: ACCOUNT_INDEX.name,
  KeySchema: [
    { AttributeName: ACCOUNT_INDEX.partitionKey, KeyType: 'HASH' },
    { AttributeName: ACCOUNT_INDEX.sortKey, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...ACCOUNT_INDEX.projected] },
};
const indexAttributes = [
  { AttributeName: ACCOUNT_INDEX.partitionKey, AttributeType: 'S' as const },
  { AttributeName: ACCOUNT_INDEX.sortKey, AttributeType: 'S' as const },
];

export async function ensureTable(db: DynamoDBClient, table: string): Promise<void> {
  try {
    const { Table } = await db.send(new DescribeTableCommand({ TableName: table }));
    // A data folder from before the index: add it (DynamoDB Local builds it from the items at once; inboxes made
    // before it carry no key of it and are not listed, as on AWS: lambdas/layout/table-layout.ts).
    if (!Table?.GlobalSecondaryIndexes?.some((index) => index.IndexName === ACCOUNT_INDEX.name)) {
      await db.send(
        new UpdateTableCommand({ TableName: table, AttributeDefinitions: indexAttributes, GlobalSecondaryIndexUpdates: [{ Create: accountIndex }] }),
      );
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
      GlobalSecondaryIndexes: [accountIndex],
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
