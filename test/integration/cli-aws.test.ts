/**
 * `tempmail … --stack NAME` as a user types it after `npm ci` (node_modules/.bin/tempmail, what `npx tempmail` runs),
 * in a process of its own, against a deployed stack's stand-ins: the AWS control plane (CloudFormation outputs, API
 * Gateway keys and usage plans: local/aws/control-plane.ts) and the project's DynamoDB Local with a table of the
 * stack's layout. The module-level tests (test/infra/aws-admin.test.ts) cannot see what users run: a bin that could
 * not load the AWS side at all passed them.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { hashApiKey } from '../../lambdas/core/ids';
import { BASE_PLANS, PAID_PLANS } from '../../lambdas/core/plans';
import { DynamoInboxStore } from '../../lambdas/store/dynamo-inbox-store';
import { authorizeKey } from '../../lambdas/usecases/keys';
import { ensureTable } from '../../local/bootstrap';
import { startControlPlane, type ControlPlane } from '../../local/aws/control-plane';
import { OUTPUTS } from '../../lib/outputs';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const ROOT = path.resolve(__dirname, '..', '..');
const STACK = 'TempMail';
const TABLE = `TempMail-Table-${randomBytes(4).toString('hex')}`;
const usagePlanId = (plan: string) => `up-${plan}`;

let cp: ControlPlane;
let db: DynamoDBDocumentClient;
let store: DynamoInboxStore;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Asynchronous: the stand-in answers from this process, which must not block while the command runs. */
const tempmail = (args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(
      path.join(ROOT, 'node_modules', '.bin', 'tempmail'),
      args,
      {
        cwd: ROOT,
        timeout: 60_000,
        // What a workstation has: a region, credentials, and here the endpoints of the stand-ins.
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'AKIDCLITEST',
          AWS_SECRET_ACCESS_KEY: 'local',
          AWS_ENDPOINT_URL_DYNAMODB: stack.dynamoEndpoint,
          ...cp.endpointEnv(),
        },
      },
      (error, stdout, stderr) => resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

(stack.store === 'dynamodb' ? describe : describe.skip)('tempmail … --stack against a deployed stack', () => {
  beforeAll(async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', endpoint: stack.dynamoEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(client, TABLE);
    db = DynamoDBDocumentClient.from(client);
    store = new DynamoInboxStore(db, TABLE);
    cp = await startControlPlane({
      stacks: {
        [STACK]: {
          [OUTPUTS.apiUrl]: 'https://abc123.execute-api.us-east-1.amazonaws.com/prod',
          [OUTPUTS.restApiId]: 'abc123',
          [OUTPUTS.tableName]: TABLE,
          [OUTPUTS.bucketName]: 'tempmail-mail',
          [OUTPUTS.deadLetterQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/000000000000/TempMail-DeadLetters',
          [OUTPUTS.ingestFunctionName]: 'TempMail-Ingest',
          ...Object.fromEntries(PAID_PLANS.map((plan) => [OUTPUTS.usagePlanId(plan), usagePlanId(plan)])),
        },
      },
      usagePlans: PAID_PLANS.map((plan) => ({ id: usagePlanId(plan), name: `TempMail-${plan}`, apiStages: [{ apiId: 'abc123', stage: 'prod' }] })),
    });
  });

  afterAll(async () => {
    await cp?.close();
  });

  it('keys create makes the hashed key item, the API Gateway key and its usage-plan key on the plan’s usage plan', async () => {
    const run = await tempmail(['keys', 'create', '--plan', 'startup', '--stack', STACK]);
    expect(run).toMatchObject({ status: 0, stdout: expect.stringMatching(/^tm_[0-9a-z]{40}\n$/) });
    expect(run.stderr).toContain(`stack ${STACK}`);
    const key = run.stdout.trim();
    const hash = hashApiKey(key);

    const items = (await db.send(new ScanCommand({ TableName: TABLE }))).Items ?? [];
    expect(items).toEqual([expect.objectContaining({ pk: `KEY#${hash}`, key_hash: hash, plan: 'startup' })]);
    expect(JSON.stringify(items)).not.toContain(key);

    const [apiKey] = cp.apiKeys();
    expect(cp.apiKeys()).toHaveLength(1);
    expect(apiKey).toMatchObject({ value: hash, enabled: true });
    expect(apiKey.name + (apiKey.description ?? '')).not.toContain(key.slice(3));
    expect(items[0].api_key_id).toBe(apiKey.id);
    expect(cp.usagePlanKeys()).toEqual([expect.objectContaining({ usagePlanId: usagePlanId('startup'), keyId: apiKey.id, value: hash })]);
    // The calls came from the command, signed with the workstation's credentials.
    expect(cp.calls().map((c) => [c.operation, c.accessKeyId])).toEqual([
      ['DescribeStacks', 'AKIDCLITEST'],
      ['CreateApiKey', 'AKIDCLITEST'],
      ['CreateUsagePlanKey', 'AKIDCLITEST'],
    ]);
    await expect(authorizeKey({ stores: { keys: store }, settings: { plans: BASE_PLANS } }, key)).resolves.toMatchObject({ plan: 'startup' });
  });

  it('keys list shows the key by hash and hint, never the key; keys revoke revokes it in all three places', async () => {
    const key = (await tempmail(['keys', 'create', '--plan', 'dev', '--stack', STACK])).stdout.trim();
    const hash = hashApiKey(key);
    const apiKeyId = cp.apiKeys().find((k) => k.value === hash)!.id;
    expect(cp.usagePlanKeys(usagePlanId('dev')).map((k) => k.keyId)).toEqual([apiKeyId]);

    const listed = await tempmail(['keys', 'list', '--json', '--stack', STACK]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).not.toContain(key);
    expect(JSON.parse(listed.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ key_hash: hash, plan: 'dev', revoked_at: null })]));

    const revoked = await tempmail(['keys', 'revoke', key, '--stack', STACK]);
    expect(revoked).toMatchObject({ status: 0, stdout: expect.stringMatching(/^revoked /) });
    expect(cp.apiKeys().map((k) => k.id)).not.toContain(apiKeyId);
    expect(cp.usagePlanKeys(usagePlanId('dev'))).toEqual([]);
    expect((await store.getKey(hash))?.revoked_at).toEqual(expect.any(String));
    await expect(authorizeKey({ stores: { keys: store }, settings: { plans: BASE_PLANS } }, key)).rejects.toMatchObject({ status: 401 });

    const after = JSON.parse((await tempmail(['keys', 'list', '--json', '--stack', STACK])).stdout) as { key_hash: string; revoked_at: string | null }[];
    expect(after.find((k) => k.key_hash === hash)?.revoked_at).toEqual(expect.any(String));
  });

  it('replay and a stack that does not exist: CloudFormation’s own answer, one line, exit 1', async () => {
    const run = await tempmail(['replay', '--stack', 'NoSuchStack']);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe('tempmail: Stack with id NoSuchStack does not exist');
    expect(cp.calls().at(-1)).toMatchObject({ operation: 'DescribeStacks', resource: expect.stringContaining('stack/NoSuchStack/') });
  });
});
