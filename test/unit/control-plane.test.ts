/**
 * The AWS control-plane stand-in (local/aws/control-plane.ts) answers the real SDK v3 clients, found through the
 * AWS_ENDPOINT_URL_* variables as a workstation or a function would find AWS, in each service's wire protocol:
 * what the CLI, the custom resource and the secret box call, their errors as the SDK names them, and a denial from
 * the authorize callback as each service's AccessDenied.
 */
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeyCommand,
  GetApiKeysCommand,
  GetUsagePlanKeysCommand,
  GetUsagePlansCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { DeleteReceiptRuleSetCommand, DescribeActiveReceiptRuleSetCommand, ListReceiptRuleSetsCommand, SESClient, SetActiveReceiptRuleSetCommand } from '@aws-sdk/client-ses';
import { startControlPlane, type ControlPlane, type ControlPlaneCall } from '../../local/aws/control-plane';

let cp: ControlPlane;
const savedEnv = { ...process.env };
let deny: ((call: ControlPlaneCall) => string | undefined) | undefined;

beforeAll(async () => {
  cp = await startControlPlane({
    stacks: { TempMail: { ApiUrl: 'https://example.invalid/prod', TableName: 'T' } },
    usagePlans: [
      { id: 'up-dev', name: 'developer', apiStages: [{ apiId: 'api', stage: 'prod' }], throttle: { rateLimit: 10, burstLimit: 20 } },
      { id: 'up-team', name: 'team', apiStages: [{ apiId: 'api', stage: 'prod' }] },
    ],
    ruleSets: ['ours', 'theirs'],
    activeRuleSet: 'theirs',
    kmsKeys: ['k1'],
    authorize: (call) => {
      const reason = deny?.(call);
      return reason ? { allowed: false, reason } : { allowed: true };
    },
  });
  Object.assign(process.env, { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...cp.endpointEnv() });
  delete process.env.AWS_PROFILE;
});

afterAll(async () => {
  process.env = savedEnv;
  await cp?.close();
});

afterEach(() => {
  deny = undefined;
});

test('listens on loopback only', () => {
  expect(cp.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

test('CloudFormation DescribeStacks answers the outputs, and an unknown stack as CloudFormation does', async () => {
  const cfn = new CloudFormationClient({});
  const out = await cfn.send(new DescribeStacksCommand({ StackName: 'TempMail' }));
  expect(out.Stacks?.[0]?.StackName).toBe('TempMail');
  expect(out.Stacks?.[0]?.Outputs).toEqual(expect.arrayContaining([{ OutputKey: 'ApiUrl', OutputValue: 'https://example.invalid/prod' }]));
  await expect(cfn.send(new DescribeStacksCommand({ StackName: 'Nope' }))).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining('Nope') });
  expect(cp.calls().at(-1)).toMatchObject({ service: 'cloudformation', action: 'cloudformation:DescribeStacks', accessKeyId: 'AKIDTEST' });
});

test('API Gateway keys and usage-plan keys: create, read, attach, detach, delete, with AWS errors', async () => {
  const apigw = new APIGatewayClient({});
  const created = await apigw.send(new CreateApiKeyCommand({ name: 'n1', value: 'v'.repeat(40), enabled: true }));
  expect(created.id).toBeTruthy();
  expect(cp.apiKeys()).toEqual([expect.objectContaining({ id: created.id, name: 'n1', value: 'v'.repeat(40), enabled: true })]);
  await expect(apigw.send(new CreateApiKeyCommand({ name: 'n2', value: 'v'.repeat(40) }))).rejects.toMatchObject({ name: 'ConflictException' });

  expect((await apigw.send(new GetApiKeysCommand({}))).items?.[0]?.value).toBeUndefined();
  expect((await apigw.send(new GetApiKeysCommand({ includeValues: true }))).items?.[0]?.value).toBe('v'.repeat(40));
  expect((await apigw.send(new GetApiKeyCommand({ apiKey: created.id!, includeValue: true }))).value).toBe('v'.repeat(40));
  await apigw.send(new UpdateApiKeyCommand({ apiKey: created.id!, patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }] }));
  expect(cp.apiKeys()[0].enabled).toBe(false);

  expect((await apigw.send(new GetUsagePlansCommand({}))).items?.map((p) => p.id)).toEqual(['up-dev', 'up-team']);
  await apigw.send(new CreateUsagePlanKeyCommand({ usagePlanId: 'up-dev', keyId: created.id!, keyType: 'API_KEY' }));
  expect(cp.usagePlanKeys()).toEqual([{ usagePlanId: 'up-dev', keyId: created.id, value: 'v'.repeat(40), name: 'n1' }]);
  // One key, two plans on the same stage: API Gateway refuses.
  await expect(apigw.send(new CreateUsagePlanKeyCommand({ usagePlanId: 'up-team', keyId: created.id!, keyType: 'API_KEY' }))).rejects.toMatchObject({ name: 'ConflictException' });
  expect((await apigw.send(new GetUsagePlanKeysCommand({ usagePlanId: 'up-dev' }))).items?.map((k) => k.id)).toEqual([created.id]);
  expect((await apigw.send(new GetUsagePlansCommand({ keyId: created.id }))).items?.map((p) => p.id)).toEqual(['up-dev']);
  await apigw.send(new DeleteUsagePlanKeyCommand({ usagePlanId: 'up-dev', keyId: created.id! }));
  expect(cp.usagePlanKeys('up-dev')).toEqual([]);
  await expect(apigw.send(new DeleteUsagePlanKeyCommand({ usagePlanId: 'up-dev', keyId: created.id! }))).rejects.toMatchObject({ name: 'NotFoundException' });

  await apigw.send(new CreateUsagePlanKeyCommand({ usagePlanId: 'up-team', keyId: created.id!, keyType: 'API_KEY' }));
  await apigw.send(new DeleteApiKeyCommand({ apiKey: created.id! }));
  // Deleting the key takes it out of its plans.
  expect(cp.apiKeys()).toEqual([]);
  expect(cp.usagePlanKeys()).toEqual([]);
  await expect(apigw.send(new DeleteApiKeyCommand({ apiKey: created.id! }))).rejects.toMatchObject({ name: 'NotFoundException' });
  expect(cp.calls().find((c) => c.operation === 'CreateApiKey')).toMatchObject({ action: 'apigateway:POST', resource: 'arn:aws:apigateway:us-east-1::/apikeys' });
});

test('SES receipt rule sets: activate, deactivate, an unknown set and deleting the active one refused', async () => {
  const ses = new SESClient({});
  expect((await ses.send(new DescribeActiveReceiptRuleSetCommand({}))).Metadata?.Name).toBe('theirs');
  await ses.send(new SetActiveReceiptRuleSetCommand({ RuleSetName: 'ours' }));
  expect(cp.activeRuleSet()).toBe('ours');
  await expect(ses.send(new DeleteReceiptRuleSetCommand({ RuleSetName: 'ours' }))).rejects.toMatchObject({ name: 'CannotDeleteException' });
  await expect(ses.send(new SetActiveReceiptRuleSetCommand({ RuleSetName: 'missing' }))).rejects.toMatchObject({ name: 'RuleSetDoesNotExistException' });
  await ses.send(new SetActiveReceiptRuleSetCommand({}));
  expect(cp.activeRuleSet()).toBeUndefined();
  expect((await ses.send(new DescribeActiveReceiptRuleSetCommand({}))).Metadata).toBeUndefined();
  await ses.send(new DeleteReceiptRuleSetCommand({ RuleSetName: 'ours' }));
  expect((await ses.send(new ListReceiptRuleSetsCommand({}))).RuleSets?.map((r) => r.Name)).toEqual(['theirs']);
});

test('KMS: a ciphertext opens only with its encryption context', async () => {
  const kms = new KMSClient({});
  const sealed = await kms.send(new EncryptCommand({ KeyId: 'k1', Plaintext: Buffer.from('s3cret'), EncryptionContext: { webhook: 'w1' } }));
  expect(Buffer.from(sealed.CiphertextBlob!).includes(Buffer.from('s3cret'))).toBe(false);
  const opened = await kms.send(new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, EncryptionContext: { webhook: 'w1' } }));
  expect(Buffer.from(opened.Plaintext!).toString()).toBe('s3cret');
  await expect(kms.send(new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, EncryptionContext: { webhook: 'w2' } }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  await expect(kms.send(new EncryptCommand({ KeyId: 'nokey', Plaintext: Buffer.from('x') }))).rejects.toMatchObject({ name: 'NotFoundException' });
});

test('a denial from authorize is each service own AccessDenied, and nothing changes', async () => {
  deny = (call) => `no policy allows ${call.action}`;
  await expect(new CloudFormationClient({}).send(new DescribeStacksCommand({ StackName: 'TempMail' }))).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  await expect(new APIGatewayClient({}).send(new CreateApiKeyCommand({ name: 'x', value: 'w'.repeat(40) }))).rejects.toMatchObject({
    name: 'AccessDeniedException',
    $metadata: { httpStatusCode: 403 },
    message: expect.stringContaining('apigateway:POST on resource: arn:aws:apigateway:us-east-1::/apikeys'),
  });
  await expect(new SESClient({}).send(new SetActiveReceiptRuleSetCommand({ RuleSetName: 'theirs' }))).rejects.toMatchObject({ name: 'AccessDenied' });
  await expect(new KMSClient({}).send(new EncryptCommand({ KeyId: 'k1', Plaintext: Buffer.from('x') }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
  expect(cp.apiKeys()).toEqual([]);
  expect(cp.activeRuleSet()).toBeUndefined();
  const denied = cp.calls().filter((c) => !c.allowed);
  expect(denied.map((c) => c.action)).toEqual(['cloudformation:DescribeStacks', 'apigateway:POST', 'ses:SetActiveReceiptRuleSet', 'kms:Encrypt']);
  expect(denied.every((c) => c.accessKeyId === 'AKIDTEST' && c.reason?.startsWith('no policy allows'))).toBe(true);
});
