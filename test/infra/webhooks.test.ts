/**
 * The webhook part of the synthesized template (lib/webhooks.ts): the stream and its filters, the queues and their
 * dead letters, the alarm, the key, and who may do what with each; cdk-nag clean (synth throws otherwise).
 * Bundling is skipped: test/infra/stack.test.ts synthesizes the bundles.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../../lib/app';
import { functionId } from '../../lib/api';
import { TTL_ATTRIBUTE } from '../../lambdas/layout/table-layout';
import { SENDER_BATCH_SIZE, SENDER_MAX_RECEIVES, SENDER_TIMEOUT_SECONDS } from '../../lib/webhooks';
import { ROUTES } from '../../lambdas/contract/routes';
import { DELIVERY_RECORD_SECONDS } from '../../lambdas/core/webhook-retries';
import { BASE_PLANS } from '../../lambdas/core/plans';
import type { Json } from '../support/json';

type Resource = { Properties: Record<string, Json>; [k: string]: Json };
let template: Template;
const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-webhooks-'));

beforeAll(() => {
  const { app, stack } = createApp({
    outdir,
    context: { 'tempmail:domains': ['mail.tempmail.test', 'inbox.tempmail.test', 'box.tempmail.test'], 'aws:cdk:bundling-stacks': [] },
  });
  app.synth(); // throws on Json unacknowledged cdk-nag finding
  template = Template.fromStack(stack);
}, 120_000);
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

const functions = () => template.findResources('AWS::Lambda::Function') as Record<string, Resource>;
const logicalIdOf = (pattern: RegExp) => Object.keys(functions()).find((id) => pattern.test(id))!;

/** The statements of a function's role: action → resources. */
function statementsOf(fnLogicalId: string): { actions: string[]; resource: unknown }[] {
  const role = functions()[fnLogicalId].Properties.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
    .map((s) => ({ actions: [s.Action].flat(), resource: s.Resource }));
}
const actionsOf = (id: string) => statementsOf(id).flatMap((s) => s.actions).sort();
const refOf = (type: string, pattern: RegExp) => Object.keys(template.findResources(type)).find((id) => pattern.test(id))!;

it('streams the table with both images, and states the TTL delivery records use', () => {
  template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
    StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
  });
  expect(DELIVERY_RECORD_SECONDS).toBe(7 * 86_400);
});

it('feeds the dispatcher only message inserts and TTL removals of inboxes, with partial batch failures', () => {
  const dispatcher = logicalIdOf(/^TempMailWebhooksDispatcher[0-9A-F]{8}$/);
  const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping') as Record<string, Resource>).find(
    (m) => m.Properties.FunctionName.Ref === dispatcher,
  )!.Properties;
  expect(mapping).toMatchObject({ StartingPosition: 'LATEST', BisectBatchOnFunctionError: true, FunctionResponseTypes: ['ReportBatchItemFailures'] });
  expect(mapping.DestinationConfig.OnFailure.Destination['Fn::GetAtt'][0]).toBe(refOf('AWS::SQS::Queue', /DeliveryDeadLetters/));
  const filters = mapping.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
  expect(filters).toEqual([
    { eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: 'MSG#' }] } } } },
    { eventName: ['REMOVE'], userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] }, dynamodb: { Keys: { sk: { S: ['INBOX'] } } } },
  ]);
  expect(functions()[dispatcher].Properties.Environment.Variables).toMatchObject({ TEMPMAIL_API_URL: expect.anything(), WEBHOOK_QUEUE_URL: expect.anything() });
});

it('runs the sender from the delivery queue; five failed receives go to the dead-letter queue, watched by an alarm', () => {
  const sender = logicalIdOf(/^TempMailWebhooksSender[0-9A-F]{8}$/);
  expect(functions()[sender].Properties.Timeout).toBe(SENDER_TIMEOUT_SECONDS);
  const queue = refOf('AWS::SQS::Queue', /WebhooksDeliveries[0-9A-F]{8}$/);
  const dlq = refOf('AWS::SQS::Queue', /DeliveryDeadLetters/);
  template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    FunctionName: { Ref: sender },
    EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] },
    BatchSize: SENDER_BATCH_SIZE,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  const q = (template.findResources('AWS::SQS::Queue') as Record<string, Resource>)[queue].Properties;
  expect(q).toMatchObject({ SqsManagedSseEnabled: true, VisibilityTimeout: 6 * SENDER_TIMEOUT_SECONDS, RedrivePolicy: { maxReceiveCount: SENDER_MAX_RECEIVES, deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] } } });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Namespace: 'AWS/SQS',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
    Threshold: 1,
  });
});

it('seals secrets with a rotated KMS key: only the create route may Encrypt, only the sender may Decrypt', () => {
  const key = refOf('AWS::KMS::Key', /WebhooksSecretsKey/);
  template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  const kmsUsers: Record<string, string[]> = {};
  for (const id of Object.keys(functions())) {
    const kms = statementsOf(id).filter((s) => s.actions.some((a) => a.startsWith('kms:')));
    if (kms.length === 0) continue;
    for (const s of kms) expect(s.resource).toEqual({ 'Fn::GetAtt': [key, 'Arn'] });
    kmsUsers[id] = kms.flatMap((s) => s.actions).sort();
  }
  const create = logicalIdOf(new RegExp(`^TempMailApi${functionId('createWebhook')}[0-9A-F]{8}$`));
  const sender = logicalIdOf(/^TempMailWebhooksSender[0-9A-F]{8}$/);
  expect(kmsUsers).toEqual({ [create]: ['kms:Encrypt'], [sender]: ['kms:Decrypt'] });
  expect(functions()[create].Properties.Environment.Variables.WEBHOOK_KEY_ID).toEqual({ 'Fn::GetAtt': [key, 'Arn'] });
  expect(functions()[logicalIdOf(/^TempMailApiListWebhooksFunction/)].Properties.Environment.Variables.WEBHOOK_KEY_ID).toBeUndefined();
});

it('grants the dispatcher and the sender nothing beyond their access lists and event sources', () => {
  const dispatcher = logicalIdOf(/^TempMailWebhooksDispatcher[0-9A-F]{8}$/);
  const sender = logicalIdOf(/^TempMailWebhooksSender[0-9A-F]{8}$/);
  expect(actionsOf(dispatcher).filter((a) => !a.startsWith('xray:'))).toEqual(
    [
      'dynamodb:GetItem', 'dynamodb:Query', // a message's inbox, the account's webhooks
      'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams', // the stream
      'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage', // failed batches to the dead letters
      'sqs:SendMessage', // deliveries
    ].sort(),
  );
  const senderActions = actionsOf(sender).filter((a) => !a.startsWith('xray:'));
  expect(senderActions).toEqual(expect.arrayContaining(['kms:Decrypt', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage']));
  expect(senderActions.filter((a) => a.startsWith('s3:') || a === 'dynamodb:Scan' || a === 'kms:Encrypt')).toEqual([]);
  // The test route queues deliveries; no other route touches a queue.
  const queueUsers = ROUTES.filter((r) => actionsOf(logicalIdOf(new RegExp(`^TempMailApi${functionId(r.name)}[0-9A-F]{8}$`))).some((a) => a.startsWith('sqs:'))).map((r) => r.name);
  expect(queueUsers).toEqual(['testWebhook']);
});

it('states webhook limits in the plan table', () => {
  expect([BASE_PLANS.free.max_webhooks, BASE_PLANS.dev.max_webhooks, BASE_PLANS.startup.max_webhooks, BASE_PLANS.enterprise.max_webhooks]).toEqual([0, 2, 10, 50]);
});
