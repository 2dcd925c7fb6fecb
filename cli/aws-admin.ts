/**
 * The AWS side of `tempmail keys` and `tempmail replay`, against a deployed TempMail stack found by its name:
 * the stack's outputs (lib/tempmail-service.ts OUTPUTS) say where the table, usage plans, queue and function are.
 *
 * A key exists in three places on AWS: the API Gateway API key (what usage plans count and throttle), its membership
 * of the plan's usage plan, and the hashed key record in the table (what the authorizer reads). Create makes all
 * three and undoes what it made if a later step fails; revoke undoes all three, record first, so the key stops
 * working as soon as the authorizer's cache expires even if API Gateway is slow to follow.
 */
import { APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand, DeleteApiKeyCommand, DeleteUsagePlanKeyCommand } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { hashApiKey, newApiKey } from '../lambdas/core/ids';
import type { ApiKeyRecord } from '../lambdas/core/model';
import { BASE_PLANS, type PlanName } from '../lambdas/core/plans';
import { awsKeyStore } from '../lambdas/app/context';
import { findKey, issueKey, listKeys, revokeKey, type IssuedKey, type KeyContext } from '../lambdas/usecases/keys';
import { OUTPUTS } from '../lib/outputs';

export interface StackRef {
  /** CloudFormation stack name, e.g. TempMail. */
  stackName: string;
  /** Defaults to the SDK's own resolution (AWS_REGION, profile). */
  region?: string;
}

export interface StackOutputs {
  apiUrl: string;
  restApiId: string;
  tableName: string;
  bucketName: string;
  deadLetterQueueUrl: string;
  ingestFunctionName: string;
  usagePlanIds: Partial<Record<PlanName, string>>;
}

const clientConfig = (region?: string) => (region ? { region } : {});

export async function stackOutputs({ stackName, region }: StackRef): Promise<StackOutputs> {
  const cfn = new CloudFormationClient(clientConfig(region));
  const out = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
  const stack = out.Stacks?.[0];
  if (!stack) throw new Error(`stack ${stackName} not found`);
  const values = new Map((stack.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const need = (key: string): string => {
    const value = values.get(key);
    if (!value) throw new Error(`stack ${stackName} has no output ${key}: is it a TempMail stack, fully deployed?`);
    return value;
  };
  const usagePlanIds: Partial<Record<PlanName, string>> = {};
  for (const plan of Object.keys(BASE_PLANS) as PlanName[]) {
    const id = values.get(OUTPUTS.usagePlanId(plan));
    if (id) usagePlanIds[plan] = id;
  }
  return {
    apiUrl: need(OUTPUTS.apiUrl),
    restApiId: need(OUTPUTS.restApiId),
    tableName: need(OUTPUTS.tableName),
    bucketName: need(OUTPUTS.bucketName),
    deadLetterQueueUrl: need(OUTPUTS.deadLetterQueueUrl),
    ingestFunctionName: need(OUTPUTS.ingestFunctionName),
    usagePlanIds,
  };
}

function keyStore(tableName: string, region?: string): KeyContext {
  return { stores: { keys: awsKeyStore(tableName, { region }) }, now: Date.now };
}

const isNotFound = (error: unknown): boolean => (error as { name?: string })?.name === 'NotFoundException';

export interface CreatedAwsKey extends IssuedKey {
  /** API Gateway's key id; absent for a plan without API access (free), which needs no usage plan. */
  apiKeyId?: string;
  usagePlanId?: string;
  apiUrl: string;
}

/** `key`: the key to create (seeded keys, TEMPMAIL_SEED_KEYS); default a new random one. */
export async function createKeyOnAws({ stackName, plan, region, key: given }: StackRef & { plan: PlanName; key?: string }): Promise<CreatedAwsKey> {
  const outputs = await stackOutputs({ stackName, region });
  const store = keyStore(outputs.tableName, region);
  const usagePlanId = outputs.usagePlanIds[plan];
  if (!BASE_PLANS[plan].api_access) {
    // The authorizer answers 403 for such a key; no usage plan would ever count it.
    return { ...(await issueKey(store, plan, { key: given })), apiUrl: outputs.apiUrl };
  }
  if (!usagePlanId) throw new Error(`stack ${stackName} has no usage plan for the ${plan} plan (output ${OUTPUTS.usagePlanId(plan)})`);

  const apigw = new APIGatewayClient(clientConfig(region));
  const key = given ?? newApiKey();
  const created = await apigw.send(
    // The name carries no part of the key: API Gateway shows names to anyone who may list keys.
    // Its value is the key's SHA-256 (what the authorizer returns as usageIdentifierKey), never the key: API Gateway
    // shows values to whoever may call apigateway:GET on /apikeys with includeValue.
    new CreateApiKeyCommand({ name: `${stackName}-${plan}-${Date.now().toString(36)}`, description: `TempMail ${plan} key`, value: hashApiKey(key), enabled: true }),
  );
  const apiKeyId = created.id;
  if (!apiKeyId) throw new Error('API Gateway created a key without an id');
  try {
    await apigw.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId, keyType: 'API_KEY' }));
    const issued = await issueKey(store, plan, { key, apiKeyId });
    return { ...issued, apiKeyId, usagePlanId, apiUrl: outputs.apiUrl };
  } catch (error) {
    // Leave nothing half-made: deleting the API key also removes it from the usage plan.
    await apigw.send(new DeleteApiKeyCommand({ apiKey: apiKeyId })).catch(() => undefined);
    throw error;
  }
}

export interface RevokedAwsKey {
  record: ApiKeyRecord;
  /** What happened to the API Gateway side. */
  usagePlanKey: 'deleted' | 'absent' | 'none';
  apiKey: 'deleted' | 'absent' | 'none';
}

/** Revokes by key value or by key hash (as `keys list` shows). Null when no such key is recorded. */
export async function revokeKeyOnAws({ stackName, key, region }: StackRef & { key: string }): Promise<RevokedAwsKey | null> {
  const outputs = await stackOutputs({ stackName, region });
  const store = keyStore(outputs.tableName, region);
  const found = await findKey(store, key);
  if (!found) return null;
  const record = (await revokeKey(store, found.key_hash)) ?? found;
  if (!record.api_key_id) return { record, usagePlanKey: 'none', apiKey: 'none' };

  const apigw = new APIGatewayClient(clientConfig(region));
  const usagePlanId = outputs.usagePlanIds[record.plan];
  let usagePlanKey: RevokedAwsKey['usagePlanKey'] = 'none';
  if (usagePlanId) {
    usagePlanKey = await apigw
      .send(new DeleteUsagePlanKeyCommand({ usagePlanId, keyId: record.api_key_id }))
      .then(() => 'deleted' as const)
      .catch((error) => {
        if (isNotFound(error)) return 'absent' as const;
        throw error;
      });
  }
  const apiKey = await apigw
    .send(new DeleteApiKeyCommand({ apiKey: record.api_key_id }))
    .then(() => 'deleted' as const)
    .catch((error) => {
      if (isNotFound(error)) return 'absent' as const;
      throw error;
    });
  return { record, usagePlanKey, apiKey };
}

/** The key records (hashes and hints, never keys), oldest first. A table scan: admin use only. */
export async function listKeysOnAws({ stackName, region }: StackRef): Promise<ApiKeyRecord[]> {
  const outputs = await stackOutputs({ stackName, region });
  return listKeys(keyStore(outputs.tableName, region));
}

export interface ReplayReport {
  /** Messages taken from the dead-letter queue. */
  received: number;
  /** Re-invoked asynchronously and deleted from the queue. */
  replayed: number;
  /** Left in the queue: no original event in them (not an on-failure record) or the re-invoke failed. */
  skipped: number;
  failed: number;
}

/**
 * Re-drives failed ingest: each dead letter is a Lambda on-failure destination record whose `requestPayload` is the
 * original SES event. It is invoked again asynchronously (so Lambda's retries and the destination apply again) and
 * deleted only after Lambda accepted it. Ingest is idempotent, so a replay of mail already stored stores nothing twice.
 */
export async function replayDeadLetters({ stackName, region, maxMessages = 10_000 }: StackRef & { maxMessages?: number }): Promise<ReplayReport> {
  const outputs = await stackOutputs({ stackName, region });
  const sqs = new SQSClient(clientConfig(region));
  const lambda = new LambdaClient(clientConfig(region));
  const report: ReplayReport = { received: 0, replayed: 0, skipped: 0, failed: 0 };
  while (report.received < maxMessages) {
    const batch = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: outputs.deadLetterQueueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        // Longer than a replay pass, so a message left in the queue is not received twice in one run.
        VisibilityTimeout: 300,
      }),
    );
    const messages = batch.Messages ?? [];
    if (messages.length === 0) break;
    for (const message of messages) {
      report.received++;
      const original = originalEvent(message.Body);
      if (original === undefined) {
        report.skipped++;
        continue;
      }
      try {
        const invoked = await lambda.send(
          new InvokeCommand({ FunctionName: outputs.ingestFunctionName, InvocationType: 'Event', Payload: Buffer.from(JSON.stringify(original)) }),
        );
        if (invoked.StatusCode !== 202) throw new Error(`Lambda answered ${invoked.StatusCode} to an Event invocation`);
      } catch {
        report.failed++;
        continue;
      }
      await sqs.send(new DeleteMessageCommand({ QueueUrl: outputs.deadLetterQueueUrl, ReceiptHandle: message.ReceiptHandle }));
      report.replayed++;
    }
  }
  return report;
}

/** The SES event inside an on-failure destination record, or undefined when the body is not one. */
export function originalEvent(body: string | undefined): unknown {
  if (!body) return undefined;
  try {
    const record = JSON.parse(body) as { requestPayload?: unknown };
    return record && typeof record === 'object' && record.requestPayload !== undefined ? record.requestPayload : undefined;
  } catch {
    return undefined;
  }
}
