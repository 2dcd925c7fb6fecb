/**
 * The template's data resources made on the stand-ins, as CloudFormation would make them on AWS: each
 * AWS::DynamoDB::Table / GlobalTable in DynamoDB Local with its key schema, attribute definitions, global and local
 * secondary indexes, stream and TTL setting (a table that exists from an earlier start gets the indexes the template
 * added and loses those it removed), and each AWS::S3::Bucket on the S3 server.
 * DynamoDB Local accepts the TTL setting but never deletes expired items: the TTL is not run here (docs/DEPLOY.md).
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  type StreamViewType,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, type S3Client } from '@aws-sdk/client-s3';
import type { LocalStackModel } from './template';
import type { Dict } from './cfn-json';


export interface TableInfo {
  logicalId: string;
  name: string;
  streamViewType?: string;
}

const TABLE_TYPES = ['AWS::DynamoDB::Table', 'AWS::DynamoDB::GlobalTable'];

export async function createTables(model: LocalStackModel, db: DynamoDBClient, log: (line: string) => void): Promise<TableInfo[]> {
  const tables: TableInfo[] = [];
  for (const type of TABLE_TYPES) {
    for (const [logicalId, r] of model.resources(type)) {
      const p = model.resolve(r.Properties ?? {}) as Dict;
      const name = model.tableName(logicalId);
      const streamViewType: StreamViewType | undefined = p.StreamSpecification?.StreamViewType;
      const gsis: GlobalSecondaryIndex[] = ((p.GlobalSecondaryIndexes ?? []) as Dict[]).map((g) => ({
        IndexName: g.IndexName,
        KeySchema: g.KeySchema,
        Projection: g.Projection,
        ...(p.BillingMode === 'PROVISIONED' || g.ProvisionedThroughput ? { ProvisionedThroughput: g.ProvisionedThroughput ?? { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } } : {}),
      }));
      const attributes = p.AttributeDefinitions as AttributeDefinition[];
      let existing: Dict | undefined;
      try {
        existing = (await db.send(new DescribeTableCommand({ TableName: name }))).Table;
      } catch (error) {
        if ((error as Error).name !== 'ResourceNotFoundException') throw error;
      }
      if (!existing) {
        await db.send(
          new CreateTableCommand({
            TableName: name,
            KeySchema: p.KeySchema,
            AttributeDefinitions: attributes,
            BillingMode: p.BillingMode === 'PROVISIONED' ? 'PROVISIONED' : 'PAY_PER_REQUEST',
            ...(p.BillingMode === 'PROVISIONED' ? { ProvisionedThroughput: p.ProvisionedThroughput ?? { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } } : {}),
            ...(gsis.length ? { GlobalSecondaryIndexes: gsis } : {}),
            ...(p.LocalSecondaryIndexes ? { LocalSecondaryIndexes: p.LocalSecondaryIndexes } : {}),
            ...(streamViewType ? { StreamSpecification: { StreamEnabled: true, StreamViewType: streamViewType } } : {}),
          }),
        );
        log(`[resources] table ${name} created`);
      } else {
        // An update of the stack: indexes the template added are created, those it dropped deleted.
        const have = new Map(((existing.GlobalSecondaryIndexes ?? []) as Dict[]).map((g) => [g.IndexName as string, g]));
        for (const gsi of gsis) {
          const current = have.get(gsi.IndexName!);
          if (current && JSON.stringify(current.KeySchema) === JSON.stringify(gsi.KeySchema) && current.Projection?.ProjectionType === gsi.Projection?.ProjectionType) continue;
          if (current) await db.send(new UpdateTableCommand({ TableName: name, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: gsi.IndexName } }] }));
          await db.send(new UpdateTableCommand({ TableName: name, AttributeDefinitions: attributes, GlobalSecondaryIndexUpdates: [{ Create: gsi }] }));
          log(`[resources] table ${name}: index ${gsi.IndexName} ${current ? 'replaced' : 'created'}`);
        }
        for (const name_ of have.keys()) {
          if (gsis.some((g) => g.IndexName === name_)) continue;
          await db.send(new UpdateTableCommand({ TableName: name, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: name_ } }] }));
          log(`[resources] table ${name}: index ${name_} deleted`);
        }
        const stream = existing.StreamSpecification as Dict | undefined;
        if ((stream?.StreamEnabled ? stream.StreamViewType : undefined) !== streamViewType) {
          if (stream?.StreamEnabled) await db.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }));
          if (streamViewType) await db.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: true, StreamViewType: streamViewType } }));
        }
      }
      const ttl = p.TimeToLiveSpecification as Dict | undefined;
      if (ttl?.Enabled) {
        await db
          .send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true } }))
          .catch((error: Error) => {
            // Already enabled (a restart).
            if (!/already enabled|TimeToLive is already/i.test(error.message)) throw error;
          });
      }
      tables.push({ logicalId, name, streamViewType });
    }
  }
  return tables;
}

export async function createBuckets(model: LocalStackModel, s3: S3Client): Promise<string[]> {
  const names: string[] = [];
  for (const [logicalId, r] of model.resources('AWS::S3::Bucket')) {
    const name = model.bucketName(logicalId);
    try {
      await s3.send(new HeadBucketCommand({ Bucket: name }));
    } catch {
      await s3.send(new CreateBucketCommand({ Bucket: name }));
    }
    // The bucket's CORS rules: a browser reads a presigned download from another origin (the viewer's raw tab).
    const cors = (model.resolve(r.Properties?.CorsConfiguration) as { CorsRules?: Record<string, unknown>[] } | undefined)?.CorsRules;
    if (cors?.length) {
      const rules = cors.map((rule) => ({
        AllowedHeaders: rule.AllowedHeaders as string[] | undefined,
        AllowedMethods: rule.AllowedMethods as string[],
        AllowedOrigins: rule.AllowedOrigins as string[],
        ExposeHeaders: rule.ExposedHeaders as string[] | undefined,
        MaxAgeSeconds: rule.MaxAge === undefined ? undefined : Number(rule.MaxAge),
      }));
      await s3.send(new PutBucketCorsCommand({ Bucket: name, CORSConfiguration: { CORSRules: rules } }));
    }
    names.push(name);
  }
  return names;
}
