/**
 * The storage side of the synthesized template: the table's account index (sparse, projecting what the list shows:
 * lambdas/layout/table-layout.ts), and the inbox cleanup (lib/cleanup.ts): the stream mapping passes only REMOVEs of
 * inbox items, failed batches go to a dead-letter queue watched by an alarm, and the function may only list and
 * delete under `inboxes/`. cdk-nag clean (synth throws otherwise). Bundling is skipped: test/infra/stack.test.ts does it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../../lib/app';
import { blobKeys } from '../../lambdas/core/ports';
import { ACCOUNT_INDEX, GROUP_INDEX, LEGACY_ACCOUNT_INDEX } from '../../lambdas/layout/table-layout';
import type { Json } from '../support/json';

type Resource = { Properties: Record<string, Json> };
let template: Template;
const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-storage-'));
const context = { 'tempmail:domains': ['mail.tempmail.test', 'inbox.tempmail.test', 'box.tempmail.test'], 'aws:cdk:bundling-stacks': [] };

beforeAll(() => {
  const { app, stack } = createApp({ outdir, context });
  app.synth();
  template = Template.fromStack(stack);
}, 120_000);
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

const indexesOf = (t: Template) => Object.values(t.findResources('AWS::DynamoDB::GlobalTable') as Record<string, Resource>)[0].Properties.GlobalSecondaryIndexes;

it('lists inboxes from a sparse index keyed by an attribute only inbox items carry, projecting only what the list shows', () => {
  expect(indexesOf(template)).toEqual([
    {
      IndexName: ACCOUNT_INDEX.name,
      KeySchema: [
        { AttributeName: 'inbox_account_id', KeyType: 'HASH' },
        { AttributeName: 'created_at', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['id', 'email', 'expires_at', 'expiry_epoch', 'message_count', 'deleting'] },
    },
    {
      IndexName: GROUP_INDEX.name,
      KeySchema: [
        { AttributeName: 'inbox_group_key', KeyType: 'HASH' },
        { AttributeName: 'created_at', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['id', 'email', 'expires_at', 'expiry_epoch', 'message_count', 'deleting'] },
    },
  ]);
});

it("keeps the old index only when asked, for the one deploy in between when upgrading a stack that has it, and adds no other index in that deploy", () => {
  const upgrade = createApp({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-upgrade-')), context: { ...context, 'tempmail:legacyAccountIndex': 'true' } });
  upgrade.app.synth();
  expect(indexesOf(Template.fromStack(upgrade.stack)).map((i: { IndexName: string; Projection: unknown }) => [i.IndexName, i.Projection])).toEqual([
    [ACCOUNT_INDEX.name, expect.objectContaining({ ProjectionType: 'INCLUDE' })],
    [LEGACY_ACCOUNT_INDEX.name, { ProjectionType: 'ALL' }],
  ]);
}, 120_000);

const idOf = (type: string, pattern: RegExp) => Object.keys(template.findResources(type)).find((id) => pattern.test(id))!;
const cleanup = () => idOf('AWS::Lambda::Function', /^TempMailCleanupInboxObjects[0-9A-F]{8}$/);

it('feeds the cleanup function every REMOVE of an inbox item from the stream, nothing else, with partial batch failures', () => {
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping') as Record<string, Resource>).filter(
    (m) => m.Properties.FunctionName.Ref === cleanup(),
  );
  expect(mappings).toHaveLength(1);
  const mapping = mappings[0].Properties;
  const table = idOf('AWS::DynamoDB::GlobalTable', /Table/);
  expect(mapping).toMatchObject({
    EventSourceArn: { 'Fn::GetAtt': [table, 'StreamArn'] },
    StartingPosition: 'LATEST',
    BisectBatchOnFunctionError: true,
    MaximumRetryAttempts: 10,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  expect(mapping.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([{ eventName: ['REMOVE'], dynamodb: { Keys: { sk: { S: ['INBOX'] } } } }]);
  const dlq = idOf('AWS::SQS::Queue', /^TempMailCleanupDeadLetters/);
  expect(mapping.DestinationConfig.OnFailure.Destination['Fn::GetAtt'][0]).toBe(dlq);
  template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
    Threshold: 1,
    AlarmActions: [{ Ref: idOf('AWS::SNS::Topic', /Alarm/) }],
  });
});

it('lets the cleanup function list and delete objects under inboxes/ only, update the table (storage usage), read its stream and send its dead letters: nothing else', () => {
  const role = (template.findResources('AWS::Lambda::Function') as Record<string, Resource>)[cleanup()].Properties.Role['Fn::GetAtt'][0];
  const statements = Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
  const actions = statements.flatMap((s) => [s.Action].flat()).sort();
  expect(actions).toEqual(
    [
      's3:DeleteObject', 's3:ListBucket',
      'dynamodb:UpdateItem', // an expired inbox's stored bytes off its account
      'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams', // the stream
      'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage', // failed batches to its dead letters
    ].sort(),
  );
  const bucket = idOf('AWS::S3::Bucket', /StorageMail/);
  const deleteObject = statements.find((s) => [s.Action].flat().includes('s3:DeleteObject'))!;
  expect(deleteObject.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, `/${blobKeys.INBOXES_PREFIX}*`]] });
  const list = statements.find((s) => [s.Action].flat().includes('s3:ListBucket'))!;
  expect(list).toMatchObject({ Resource: { 'Fn::GetAtt': [bucket, 'Arn'] }, Condition: { StringLike: { 's3:prefix': [`${blobKeys.INBOXES_PREFIX}*`] } } });
});
