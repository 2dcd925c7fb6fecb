/**
 * The AWS side of `tempmail keys` and `tempmail replay`. No AWS is reachable here, so the control-plane calls
 * (CloudFormation, API Gateway, SQS, Lambda) are mocked with aws-sdk-client-mock; the key records go to a real
 * DynamoDB Local table with the stack's layout, through the same store the authorizer reads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand, DeleteApiKeyCommand, DeleteUsagePlanKeyCommand } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createKeyOnAws, listKeysOnAws, originalEvent, replayDeadLetters, revokeKeyOnAws, stackOutputs } from '../../cli/aws-admin';
import { OUTPUTS } from '../../lib/outputs';
import { hashApiKey } from '../../lambdas/core/ids';
import { BASE_PLANS, PAID_PLANS } from '../../lambdas/core/plans';
import { DynamoInboxStore } from '../../lambdas/store/dynamo-inbox-store';
import { authorizeKey } from '../../lambdas/usecases/keys';
import { ensureTable } from '../../local/bootstrap';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/ports';

const cfn = mockClient(CloudFormationClient);
const apigw = mockClient(APIGatewayClient);
const sqs = mockClient(SQSClient);
const lambda = mockClient(LambdaClient);

const STACK = 'TempMail';
const TABLE = 'TempMail-Table-ABC123';
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/TempMail-DeadLetters';
const INGEST = 'TempMail-Ingest-XYZ';
const usagePlanId = (plan: string) => `up-${plan}`;

let dynamo: DynamoDbLocal;
let store: DynamoInboxStore;
const savedEnv = { ...process.env };

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-aws-admin-'));
  dynamo = await startDynamoDbLocal({ host: '127.0.0.1', port: await freePort(), dataDir });
  // The admin functions build their own SDK clients, as on a workstation; these point DynamoDB at the local one.
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  const client = new DynamoDBClient({});
  await ensureTable(client, TABLE);
  store = new DynamoInboxStore(DynamoDBDocumentClient.from(client), TABLE);
}, 60_000);

afterAll(async () => {
  process.env = savedEnv;
  await dynamo?.stop();
});

beforeEach(() => {
  for (const mock of [cfn, apigw, sqs, lambda]) mock.reset();
  cfn.on(DescribeStacksCommand, { StackName: STACK }).resolves({
    Stacks: [
      {
        StackName: STACK,
        CreationTime: new Date(),
        StackStatus: 'CREATE_COMPLETE',
        Outputs: [
          { OutputKey: OUTPUTS.apiUrl, OutputValue: 'https://abc123.execute-api.us-east-1.amazonaws.com/prod' },
          { OutputKey: OUTPUTS.restApiId, OutputValue: 'abc123' },
          { OutputKey: OUTPUTS.tableName, OutputValue: TABLE },
          { OutputKey: OUTPUTS.bucketName, OutputValue: 'tempmail-mail-bucket' },
          { OutputKey: OUTPUTS.deadLetterQueueUrl, OutputValue: QUEUE },
          { OutputKey: OUTPUTS.ingestFunctionName, OutputValue: INGEST },
          ...PAID_PLANS.map((plan) => ({ OutputKey: OUTPUTS.usagePlanId(plan), OutputValue: usagePlanId(plan) })),
        ],
      },
    ],
  });
});

describe('keys on AWS', () => {
  it('reads the stack outputs the CDK stack declares', async () => {
    const outputs = await stackOutputs({ stackName: STACK });
    expect(outputs).toEqual(
      expect.objectContaining({ tableName: TABLE, deadLetterQueueUrl: QUEUE, ingestFunctionName: INGEST, usagePlanIds: { dev: 'up-dev', startup: 'up-startup', enterprise: 'up-enterprise' } }),
    );
  });

  it('creates the API Gateway key, adds it to the plan’s usage plan and writes the hashed record the authorizer accepts', async () => {
    apigw.on(CreateApiKeyCommand).resolves({ id: 'key-id-1' });
    apigw.on(CreateUsagePlanKeyCommand).resolves({ id: 'key-id-1' });
    const created = await createKeyOnAws({ stackName: STACK, plan: 'dev' });

    const createCalls = apigw.commandCalls(CreateApiKeyCommand);
    expect(createCalls).toHaveLength(1);
    expect(createCalls[0].args[0].input).toEqual(expect.objectContaining({ value: hashApiKey(created.key), enabled: true }));
    expect(createCalls[0].args[0].input.name).not.toContain(created.key.slice(3, 12));
    expect(apigw.commandCalls(CreateUsagePlanKeyCommand).map((c) => c.args[0].input)).toEqual([{ usagePlanId: 'up-dev', keyId: 'key-id-1', keyType: 'API_KEY' }]);

    const record = await store.getKey(hashApiKey(created.key));
    expect(record).toEqual(expect.objectContaining({ plan: 'dev', api_key_id: 'key-id-1', key_hash: hashApiKey(created.key) }));
    expect(JSON.stringify(record)).not.toContain(created.key);
    await expect(authorizeKey({ stores: { keys: store }, settings: { plans: BASE_PLANS } }, created.key)).resolves.toEqual({ account_id: record!.account_id, plan: 'dev' });
  });

  it('deletes the API key again when adding it to the usage plan fails, and writes no record', async () => {
    apigw.on(CreateApiKeyCommand).resolves({ id: 'key-id-orphan' });
    apigw.on(CreateUsagePlanKeyCommand).rejects(Object.assign(new Error('Too many requests'), { name: 'TooManyRequestsException' }));
    apigw.on(DeleteApiKeyCommand).resolves({});
    const before = (await store.listKeys()).length;
    await expect(createKeyOnAws({ stackName: STACK, plan: 'startup' })).rejects.toThrow('Too many requests');
    expect(apigw.commandCalls(DeleteApiKeyCommand).map((c) => c.args[0].input)).toEqual([{ apiKey: 'key-id-orphan' }]);
    expect(await store.listKeys()).toHaveLength(before);
  });

  it('creates a free-plan key as a record only: no usage plan would ever count it', async () => {
    const created = await createKeyOnAws({ stackName: STACK, plan: 'free' });
    expect(apigw.calls()).toHaveLength(0);
    expect(created.apiKeyId).toBeUndefined();
    await expect(authorizeKey({ stores: { keys: store }, settings: { plans: BASE_PLANS } }, created.key)).rejects.toMatchObject({ status: 403 });
  });

  it('revokes all three: the record, the usage plan membership and the API key; by key or by hash', async () => {
    apigw.on(CreateApiKeyCommand).resolvesOnce({ id: 'key-a' }).resolvesOnce({ id: 'key-b' });
    apigw.on(CreateUsagePlanKeyCommand).resolves({});
    const a = await createKeyOnAws({ stackName: STACK, plan: 'enterprise' });
    const b = await createKeyOnAws({ stackName: STACK, plan: 'dev' });
    apigw.on(DeleteUsagePlanKeyCommand).resolves({});
    apigw.on(DeleteApiKeyCommand).resolves({});

    const revokedA = await revokeKeyOnAws({ stackName: STACK, key: a.key });
    expect(revokedA).toEqual(expect.objectContaining({ usagePlanKey: 'deleted', apiKey: 'deleted' }));
    expect(revokedA!.record.revoked_at).toEqual(expect.any(String));
    await expect(authorizeKey({ stores: { keys: store }, settings: { plans: BASE_PLANS } }, a.key)).rejects.toMatchObject({ status: 401 });
    expect(apigw.commandCalls(DeleteUsagePlanKeyCommand).map((c) => c.args[0].input)).toEqual([{ usagePlanId: 'up-enterprise', keyId: 'key-a' }]);
    expect(apigw.commandCalls(DeleteApiKeyCommand).map((c) => c.args[0].input)).toEqual([{ apiKey: 'key-a' }]);

    // By hash (what `keys list` shows), with API Gateway already missing the key: still revoked, reported as absent.
    const notFound = Object.assign(new Error('Invalid API Key identifier specified'), { name: 'NotFoundException' });
    apigw.on(DeleteUsagePlanKeyCommand).rejects(notFound);
    apigw.on(DeleteApiKeyCommand).rejects(notFound);
    const revokedB = await revokeKeyOnAws({ stackName: STACK, key: hashApiKey(b.key) });
    expect(revokedB).toEqual(expect.objectContaining({ usagePlanKey: 'absent', apiKey: 'absent' }));
    await expect(authorizeKey({ stores: { keys: store }, settings: { plans: BASE_PLANS } }, b.key)).rejects.toMatchObject({ status: 401 });

    await expect(revokeKeyOnAws({ stackName: STACK, key: 'tm_no_such_key' })).resolves.toBeNull();
  });

  it('lists records with hashes and hints, never the keys', async () => {
    apigw.on(CreateApiKeyCommand).resolves({ id: 'key-listed' });
    apigw.on(CreateUsagePlanKeyCommand).resolves({});
    const created = await createKeyOnAws({ stackName: STACK, plan: 'startup' });
    const listed = await listKeysOnAws({ stackName: STACK });
    expect(listed.map((k) => k.key_hash)).toContain(hashApiKey(created.key));
    expect(JSON.stringify(listed)).not.toContain(created.key);
  });

  it('names the missing output when the stack is not a TempMail stack', async () => {
    cfn.on(DescribeStacksCommand, { StackName: 'Other' }).resolves({ Stacks: [{ StackName: 'Other', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: [] }] });
    await expect(createKeyOnAws({ stackName: 'Other', plan: 'dev' })).rejects.toThrow(/no output ApiUrl/);
  });
});

describe('replaying dead letters', () => {
  const sesEvent = (id: string) => ({ Records: [{ eventSource: 'aws:ses', eventVersion: '1.0', ses: { mail: { messageId: id }, receipt: { recipients: [`a@mail.example.com`] } } }] });
  const onFailureRecord = (id: string) =>
    JSON.stringify({
      version: '1.0',
      timestamp: '2026-11-22T10:00:00.000Z',
      requestContext: { requestId: `req-${id}`, functionArn: `arn:aws:lambda:us-east-1:123456789012:function:${INGEST}:$LATEST`, condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      requestPayload: sesEvent(id),
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: 'DependencyUnavailable', errorMessage: 'DynamoDB unavailable' },
    });

  it('re-invokes ingest asynchronously with each original SES event, deletes what Lambda accepted, leaves the rest', async () => {
    sqs
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          { MessageId: 'm1', ReceiptHandle: 'rh-1', Body: onFailureRecord('ses-1') },
          { MessageId: 'm2', ReceiptHandle: 'rh-2', Body: 'not json' },
          { MessageId: 'm3', ReceiptHandle: 'rh-3', Body: onFailureRecord('ses-3') },
        ],
      })
      .resolvesOnce({ Messages: [{ MessageId: 'm4', ReceiptHandle: 'rh-4', Body: onFailureRecord('ses-4') }] })
      .resolves({ Messages: [] });
    sqs.on(DeleteMessageCommand).resolves({});
    lambda
      .on(InvokeCommand)
      .resolvesOnce({ StatusCode: 202 })
      .rejectsOnce(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }))
      .resolves({ StatusCode: 202 });

    const report = await replayDeadLetters({ stackName: STACK });
    expect(report).toEqual({ received: 4, replayed: 2, skipped: 1, failed: 1 });

    const invokes = lambda.commandCalls(InvokeCommand).map((c) => c.args[0].input);
    expect(invokes).toHaveLength(3);
    for (const invoke of invokes) expect(invoke).toEqual(expect.objectContaining({ FunctionName: INGEST, InvocationType: 'Event' }));
    expect(invokes.map((i) => JSON.parse(Buffer.from(i.Payload as Uint8Array).toString('utf8')))).toEqual([sesEvent('ses-1'), sesEvent('ses-3'), sesEvent('ses-4')]);
    // ses-3's invoke failed and the garbage message was skipped: both stay in the queue.
    expect(sqs.commandCalls(DeleteMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: QUEUE, ReceiptHandle: 'rh-1' },
      { QueueUrl: QUEUE, ReceiptHandle: 'rh-4' },
    ]);
    expect(sqs.commandCalls(ReceiveMessageCommand)[0].args[0].input).toEqual(expect.objectContaining({ QueueUrl: QUEUE, MaxNumberOfMessages: 10 }));
  });

  it('reports an empty queue as nothing replayed', async () => {
    sqs.on(ReceiveMessageCommand).resolves({});
    await expect(replayDeadLetters({ stackName: STACK })).resolves.toEqual({ received: 0, replayed: 0, skipped: 0, failed: 0 });
    expect(lambda.calls()).toHaveLength(0);
  });

  it('takes the original event only from an on-failure destination record', () => {
    expect(originalEvent(onFailureRecord('x'))).toEqual(sesEvent('x'));
    expect(originalEvent(JSON.stringify({ Records: [] }))).toBeUndefined();
    expect(originalEvent('{')).toBeUndefined();
    expect(originalEvent(undefined)).toBeUndefined();
  });
});
