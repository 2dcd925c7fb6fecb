/**
 * Keys on the template form, through the same path as `tempmail keys create --stack` (cli/aws-admin.ts): the stack's
 * outputs from CloudFormation's DescribeStacks, the hashed key record in the table, the API Gateway key and its
 * usage-plan key, all over the AWS SDK to the local endpoints this process was pointed at (operatorEnv).
 * The control-plane stand-in keeps API Gateway's keys in memory, so at each start the API Gateway side of the keys
 * the table already holds is made again (their API key ids change; the records keep the first ones, which only
 * `keys revoke` uses, and it tolerates a key already gone from API Gateway).
 */
import { APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand } from '@aws-sdk/client-api-gateway';
import { hashApiKey } from '../../lambdas/core/ids';
import { BASE_PLANS, type PlanName } from '../../lambdas/core/plans';
import { findKey } from '../../lambdas/usecases/keys';
import { awsKeyStore } from '../../lambdas/app/context';
import { createKeyOnAws, listKeysOnAws, stackOutputs } from '../../cli/aws-admin';
import type { ControlPlane } from './control-plane';

/** Creates the key unless its record exists; returns the key. Without `key`, a new one (the printed dev key). */
export async function seedKey(stackName: string, plan: PlanName, key?: string): Promise<string> {
  if (key) {
    const outputs = await stackOutputs({ stackName });
    if (await findKey({ stores: { keys: awsKeyStore(outputs.tableName) } }, hashApiKey(key))) return key;
  }
  return (await createKeyOnAws({ stackName, plan, key })).key;
}

export async function keyCount(stackName: string): Promise<number> {
  return (await listKeysOnAws({ stackName })).length;
}

/** API Gateway keys (value = the key's hash) and usage-plan memberships for every live key record with API access. */
export async function restoreApiKeys(stackName: string, controlPlane: ControlPlane): Promise<number> {
  const outputs = await stackOutputs({ stackName });
  const records = await listKeysOnAws({ stackName });
  const present = new Set(controlPlane.apiKeys().map((k) => k.value));
  const apigw = new APIGatewayClient({});
  let restored = 0;
  for (const record of records) {
    if (record.revoked_at || !record.api_key_id || !BASE_PLANS[record.plan].api_access || present.has(record.key_hash)) continue;
    const usagePlanId = outputs.usagePlanIds[record.plan];
    if (!usagePlanId) continue;
    const created = await apigw.send(new CreateApiKeyCommand({ name: `${stackName}-${record.plan}-restored`, value: record.key_hash, enabled: true }));
    await apigw.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: created.id!, keyType: 'API_KEY' }));
    restored++;
  }
  return restored;
}
