/**
 * What only the template form (`npm run start:aws`, issue 21) shows: the synthesized template decides, not the
 * sources. A copy of the shared stack's template is changed the way a faulty construct would change it, run with
 * TEMPMAIL_TEMPLATE, and each change shows as it would on AWS:
 * - one function's Environment loses TABLE_NAME: that route fails, the others still serve;
 * - one function's role loses dynamodb:Query: its call is AccessDenied (the IAM gate, local/aws/iam), logged;
 * - one route's AWS::Lambda::Permission is removed: API Gateway may not invoke its function, 500;
 * - one route's code is a fixture (test/fixtures/lambdas/sized-answer) with a 3 s Timeout: a call past it is killed
 *   and API Gateway answers 502; an answer over Lambda's 6 MB response limit is 502 too;
 * - the authorizer's result TTL (60 s in the template): a revoked key is still let through while its answer is
 *   cached, as on AWS.
 * The faults of issue 21, each through the template as synthesized (its functions, gateway, stream mappings, TTL
 * every 2 s here): the 1 h grace before TTL removes an expired inbox (2); the inbox's S3 objects deleted when TTL
 * removes it (3); the stage and keyless throttles and no authorizer ceiling (4); the sparse INCLUDE account index
 * (6); attachments copied server-side to the further inboxes of a mail (7); a virus FAIL kept but not served (8).
 * Runs in the aws-template jest project only.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DescribeTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { keyHint } from '../../lambdas/core/ids';
import { blobKeys } from '../../lambdas/core/ports';
import { ACCOUNT_INDEX, INBOX_SK } from '../../lambdas/layout/table-layout';
import { standInSettings } from '../../lambdas/layout/stand-ins';
import { readEvidence } from '../../local/aws/iam';
import { evidenceFileFor } from '../support/iam-evidence';
import { revokeKey } from '../../lambdas/usecases/keys';
import { expectError, http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { newTestKey } from '../support/keys';
import { sharedStack } from '../support/shared';
import { startStack, type StackHandle } from '../support/stack';
import { storesFor } from '../support/store';
import { expectTryItWorked, runTryIt } from '../support/try-it';
import type { Json } from '../support/json';
type Dict = Record<string, Json>;


const shared = sharedStack();
let stack: StackHandle;
let dir: string;
let evidenceFile: string;
/** The template's stage method setting for GET /viewer/{asset}, if it has one. */
let keylessThrottle: Dict | undefined;

/**
 * A command's exit status and output, run without blocking this process (a blocked event loop leaves the HTTP
 * client's idle sockets in its pool after the server closed them, and the next request fails on one).
 */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: path.join(__dirname, '..', '..'), env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The logical id of the function behind the API method whose OperationName is `operation`. */
function functionOf(template: Dict, operation: string): string {
  const method = Object.values(template.Resources as Dict).find((r: Dict) => r.Type === 'AWS::ApiGateway::Method' && r.Properties?.OperationName === operation) as Dict;
  const parts = method.Properties.Integration.Uri['Fn::Join'][1] as unknown[];
  return (parts.find((p) => typeof p === 'object' && (p as Dict)['Fn::GetAtt']) as Dict)['Fn::GetAtt'][0];
}

beforeAll(async () => {
  const original = shared.aws!.templateFile;
  const template = JSON.parse(fs.readFileSync(original, 'utf8')) as Dict;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-template-'));
  // The assets stay where the synth put them; the copy's asset paths resolve beside it.
  for (const entry of fs.readdirSync(path.dirname(original)).filter((e) => e.startsWith('asset.'))) {
    fs.symlinkSync(path.join(path.dirname(original), entry), path.join(dir, entry));
  }
  delete template.Resources[functionOf(template, 'deleteMessage')].Properties.Environment.Variables.TABLE_NAME;
  // API Gateway loses its permission to invoke deleteWebhook's function (its AWS::Lambda::Permission resources).
  const deleteWebhook = functionOf(template, 'deleteWebhook');
  for (const [id, r] of Object.entries(template.Resources as Dict)) {
    if (r.Type === 'AWS::Lambda::Permission' && JSON.stringify(r.Properties.FunctionName).includes(`"${deleteWebhook}"`)) delete template.Resources[id];
  }
  fs.cpSync(path.join(__dirname, '..', 'fixtures', 'lambdas', 'sized-answer'), path.join(dir, 'asset.sized-answer'), { recursive: true });
  // listInboxes's role loses dynamodb:Query (its one read: the account index).
  const role = template.Resources[functionOf(template, 'listInboxes')].Properties.Role['Fn::GetAtt'][0];
  for (const policy of Object.values(template.Resources as Dict).filter((r: Dict) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: role }])) as Dict[]) {
    for (const statement of policy.Properties.PolicyDocument.Statement as Dict[]) {
      // An action stands alone or in a list; a statement left with none is dropped.
      statement.Action = ([] as string[]).concat(statement.Action ?? []).filter((a: string) => a !== 'dynamodb:Query');
    }
    policy.Properties.PolicyDocument.Statement = (policy.Properties.PolicyDocument.Statement as Dict[]).filter((st) => st.Action.length > 0);
  }
  // The keyless viewer-asset method's own throttle (fault 4), made tiny so that its enforcement shows without a flood
  // (the template's numbers are test/infra's): 2 requests, then one in 1,000 s.
  const stage = Object.values(template.Resources as Dict).find((r: Dict) => r.Type === 'AWS::ApiGateway::Stage') as Dict;
  keylessThrottle = (stage.Properties.MethodSettings as Dict[]).find((m) => m.ResourcePath === '/~1viewer~1{asset}' && m.HttpMethod === 'GET');
  if (keylessThrottle) Object.assign(keylessThrottle, { ThrottlingBurstLimit: 2, ThrottlingRateLimit: 0.001 });
  const fixture = template.Resources[functionOf(template, 'getOpenApi')];
  fixture.Metadata['aws:asset:path'] = 'asset.sized-answer';
  fixture.Properties.Timeout = 3;
  const file = path.join(dir, `${shared.aws!.stackName}.template.json`);
  fs.writeFileSync(file, JSON.stringify(template));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-test-'));
  evidenceFile = evidenceFileFor(dataDir) ?? path.join(dir, 'iam-evidence.json');
  // The template's authorizer cache (60 s), not the test stacks' 0; DynamoDB's TTL every 2 s (faults 2 and 3).
  stack = await startStack({
    form: 'aws-template',
    dataDir,
    env: { TEMPMAIL_TEMPLATE: file, TEMPMAIL_AUTHORIZER_CACHE_SECONDS: '', TEMPMAIL_TTL_INTERVAL_MS: '2000', TEMPMAIL_IAM_EVIDENCE: evidenceFile, TEMPMAIL_NO_DEV_KEY: '' },
  });
}, 330_000);

afterAll(async () => {
  await stack?.stop();
  await storesFor(stack).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('a function whose Environment lost TABLE_NAME fails its requests, as on AWS; the other functions serve', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const inbox = (await api('POST', '/v1/inboxes', {})).body;
  const reply = await api('DELETE', `/v1/inboxes/${inbox.id}/messages/msg_none`);
  expect(reply.status).toBeGreaterThanOrEqual(500);
  expect(reply.body).toEqual({ error: { code: reply.status, message: expect.any(String) } });
  expect((await api('GET', '/v1/domains')).status).toBe(200);
  expect((await api('GET', '/v1/webhooks')).status).toBe(200);
});

it("a call the function's synthesized policy does not allow is AccessDenied, logged with the action and resource; the request fails", async () => {
  const reply = await http(stack.apiUrl, stack.keys.enterprise)('GET', '/v1/inboxes');
  expect(reply.status).toBeGreaterThanOrEqual(500);
  expect(reply.body).toEqual({ error: { code: reply.status, message: expect.any(String) } });
  expect(stack.output()).toMatch(/\[iam\] denied \S+ dynamodb:Query on \S+\/index\/\S*by_account/);
});

it('past its template Timeout a function is killed and API Gateway answers 502; the next invocation gets a fresh environment', async () => {
  // The fixture route's function has a 3 s Timeout in this template; this call would take 8 s.
  expectError(await http(stack.apiUrl)('GET', '/v1/openapi.json?sleep=8000'), 502);
  expect(stack.output()).toMatch(/Task timed out after 3\.00 seconds/);
  const next = await fetch(`${stack.apiUrl}/v1/openapi.json?bytes=10`);
  expect(next.status).toBe(200);
  expect(await next.text()).toBe('x'.repeat(10));
});

it("an answer over Lambda's 6 MB response limit is API Gateway's 502; one under it passes whole", async () => {
  const small = await fetch(`${stack.apiUrl}/v1/openapi.json?bytes=5000000`);
  expect(small.status).toBe(200);
  expect((await small.text()).length).toBe(5_000_000);
  const big = await http(stack.apiUrl)('GET', '/v1/openapi.json?bytes=7000000');
  expectError(big, 502);
  expect(stack.output()).toMatch(/Function\.ResponseSizeTooLarge/);
});

it("the authorizer's answer is cached for the template's TTL: a key revoked meanwhile still passes, as on AWS", async () => {
  const key = await newTestKey(stack, 'startup');
  const api = http(stack.apiUrl, key);
  expect((await api('GET', '/v1/domains')).status).toBe(200);
  await revokeKey(storesFor(stack).keyContext, key);
  expect((await api('GET', '/v1/domains')).status).toBe(200);
  // Another key is not served from that entry.
  expectError(await http(stack.apiUrl, `${key}x`)('GET', '/v1/domains'), 401);
});

it("API Gateway invokes only what a function's resource policy lets it: without its AWS::Lambda::Permission a route answers 500", async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const reply = await api('DELETE', '/v1/webhooks/wh_none');
  expect(reply.status).toBe(500);
  expect(stack.output()).toMatch(/Invalid permissions on Lambda function: apigateway\.amazonaws\.com \(source arn:aws:execute-api:\S+\/DELETE\/v1\/webhooks\/wh_none\)/);
  // The other webhook routes keep theirs.
  expectError(await api('GET', '/v1/webhooks/wh_none'), 404);
});

it("keeps the dev key it makes in <data folder>/dev-key (0600), as npm start does, so the README's scripts read it; the key works", async () => {
  const file = path.join(stack.dataDir, 'dev-key');
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  const key = fs.readFileSync(file, 'utf8').trim();
  expect(stack.output()).toContain(`dev key   ${key}   (kept in ${file}`);
  expect((await http(stack.apiUrl, key)('POST', '/v1/inboxes', {})).status).toBe(201);
});

it("runs the README's Try it block unchanged: tempmail env finds this stack's port, SMTP port and dev key (the block against npm start: try-it.test.ts)", async () => {
  expectTryItWorked(await runTryIt(stack.dataDir));
}, 120_000);

it("prints where the viewer is, as npm start does, and serves it there", async () => {
  const line = /^ {2}viewer {4}(http:\/\/\S+)/m.exec(stack.output());
  expect(line?.[1]).toBe(`${stack.apiUrl}/`);
  const page = await fetch(line![1]);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
});

it('webhooks follow the deployed rules: https to public addresses only, the documentation prefixes refused (the chain itself: webhooks.test.ts)', async () => {
  const api = http(shared.apiUrl, shared.keys.enterprise);
  expectError(await api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook' }), 400);
  expect(expectError(await api('POST', '/v1/webhooks', { url: 'https://[3fff::1]/hook' }), 400)).toMatch(/url refused/);
});

it('the keys CLI, run as users run it (the bin), finds the running template form and its key works through the gateway and usage plan', async () => {
  const cli = (...args: string[]) =>
    run(process.execPath, [path.join(__dirname, '..', '..', 'cli', 'bin', 'tempmail.js'), ...args], { ...process.env, TEMPMAIL_DATA_DIR: shared.dataDir });
  const created = await cli('keys', 'create', '--plan', 'dev');
  expect(created.status).toBe(0);
  // One line names the target, once (it was printed twice: the template form's line, then the --stack path's).
  expect(created.stderr.split('\n').filter((l) => l.startsWith('tempmail: stack'))).toEqual([expect.stringMatching(/^tempmail: stack TempMail of the template form/)]);
  const key = created.stdout.trim();
  expect((await http(shared.apiUrl, key)('GET', '/v1/domains')).status).toBe(200);
  // The same with --stack, as on AWS.
  const listed = await cli('keys', 'list', '--json', '--stack', shared.aws!.stackName);
  expect(listed.status).toBe(0);
  expect(JSON.parse(listed.stdout).map((k: { hint: string }) => k.hint)).toContain(keyHint(key));
});

it('deletes a message: its item, its count on the inbox and its objects (the deployed deleteMessage, on the shared stack)', async () => {
  const api = http(shared.apiUrl, shared.keys.enterprise);
  const inbox = (await api('POST', '/v1/inboxes', {})).body;
  await sendMail(shared.smtpPort, { to: inbox.email, subject: 'to delete', text: 'x', attachments: [{ filename: 'a.txt', content: 'a' }] });
  const [message] = await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages?.length && (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages, 60_000, 'the mail');
  expect((await api('DELETE', `/v1/inboxes/${inbox.id}/messages/${message.id}`)).body).toEqual({ deleted: true });
  expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages/${message.id}`), 404);
  expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(0);
}, 90_000);

it("empties an inbox and keeps it: its messages and their count go (the deployed EmptyInboxFunction, on the shared stack: its grants are in the unused-grant report)", async () => {
  const api = http(shared.apiUrl, shared.keys.enterprise);
  const inbox = (await api('POST', '/v1/inboxes', {})).body;
  for (const subject of ['one', 'two']) await sendMail(shared.smtpPort, { to: inbox.email, subject, text: 'x', attachments: [{ filename: 'a.txt', content: subject }] });
  await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages?.length === 2, 60_000, 'the two mails');
  expect((await api('DELETE', `/v1/inboxes/${inbox.id}/messages`)).body).toEqual({ deleted_count: 2, finished: true });
  expect((await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages).toEqual([]);
  expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(0);
}, 90_000);

describe('the faults of issue 21, through the template form', () => {
  const nowEpoch = () => Math.floor(Date.now() / 1000);
  const dynamo = () => new DynamoDBClient(standInSettings(stack.dynamoEndpoint!));
  const objectsUnder = async (prefix: string) => {
    const s3 = new S3Client({ forcePathStyle: true, ...standInSettings(stack.s3Endpoint!) });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: stack.bucket, Prefix: prefix }));
    return (listed.Contents ?? []).map((o) => o.Key!);
  };
  const withAttachment = (to: string | string[], subject: string) =>
    sendMail(stack.smtpPort, { to, subject, text: 'the code is 482913', attachments: [{ filename: 'a.txt', content: 'first' }, { filename: 'b.bin', content: Buffer.alloc(2048, 7) }] });
  const messagesOf = (key: string, inboxId: string) =>
    eventually(async () => {
      const list = (await http(stack.apiUrl, key)('GET', `/v1/inboxes/${inboxId}/messages`)).body;
      return list.messages?.length ? list.messages : null;
    }, 60_000, `mail in ${inboxId}`);

  it("2 and 3: TTL removes an inbox one grace hour after its expiry, not at it, and its S3 objects go with it", async () => {
    const key = stack.keys.enterprise;
    const api = http(stack.apiUrl, key);
    // An inbox of the shortest lifetime, expired for real (its TTL attribute is what CreateInbox wrote).
    const graced = (await api('POST', '/v1/inboxes', { ttl: 60 })).body;
    const removed = (await api('POST', '/v1/inboxes', {})).body;
    await withAttachment(graced.email, 'graced');
    await withAttachment(removed.email, 'removed');
    await messagesOf(key, graced.id);
    await messagesOf(key, removed.id);
    expect((await objectsUnder(blobKeys.inbox(removed.id))).length).toBeGreaterThanOrEqual(2);
    const gracedObjects = await objectsUnder(blobKeys.inbox(graced.id));
    expect(gracedObjects.length).toBeGreaterThanOrEqual(2);
    const answer = async (id: string) => (await api('GET', `/v1/inboxes/${id}`)).body?.error?.message;
    await eventually(async () => (await answer(graced.id)) === `inbox expired: ${graced.id}`, 90_000, 'the 60 s inbox expired');
    // The other one expired two hours ago, past the grace: TTL removes it at its next sweep, which sees both.
    await storesFor(stack).setExpiry(removed.id, removed.email, nowEpoch() - 2 * 3600);
    await eventually(async () => (await answer(removed.id)) === `inbox not found: ${removed.id}`, 60_000, 'TTL removing the inbox past its grace');
    // Fault 2: the expired inbox within its grace is still there, saying so (TTL equal to the expiry removed it).
    expect(expectError(await api('GET', `/v1/inboxes/${graced.id}`), 404)).toBe(`inbox expired: ${graced.id}`);
    // Fault 3: TTL's REMOVE reached the cleanup function, which deleted that inbox's objects; the other's stay.
    await eventually(async () => (await objectsUnder(blobKeys.inbox(removed.id))).length === 0, 60_000, "the removed inbox's objects deleted");
    expect(await objectsUnder(blobKeys.inbox(graced.id))).toEqual(gracedObjects);
  }, 240_000);

  it('4: a keyless route has its own method throttle, and a flood of unknown keys is 401, never the authorizer throttled into 500', async () => {
    // The stage's setting for the keyless method exists (its numbers here: 2, then one in 1,000 s) and the gateway
    // applies it: past its burst, 429 without invoking the function.
    expect(keylessThrottle).toBeDefined();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${stack.apiUrl}/viewer/none.js`)).status);
    expect(statuses).toEqual([404, 404, 429]);
    // Another keyless method has its own bucket.
    expect((await fetch(`${stack.apiUrl}/v1/openapi.json?bytes=1`)).status).toBe(200);
    // The authorizer reserves no concurrency (a reservation was its ceiling, and a throttled authorizer is everyone's
    // 500): 60 unknown keys at once are each 401.
    const flood = await Promise.all(Array.from({ length: 60 }, (_, i) => http(stack.apiUrl, `tm_live_unknown${i}${'x'.repeat(30)}`)('GET', '/v1/domains').then((r) => r.status)));
    // A 500 names its cause from the gateway's execution log (a throttle, a timeout, a crash of the authorizer).
    const causes = flood.includes(500) ? stack.output().split('\n').filter((line) => /Authorizer error/.test(line)) : [];
    expect({ statuses: [...new Set(flood)], causes }).toEqual({ statuses: [401], causes: [] });
    expect((await http(stack.apiUrl, stack.keys.startup)('GET', '/v1/domains')).status).toBe(200);
  }, 120_000);

  it('6: the account index is sparse and INCLUDE: only inbox items, with only the projected attributes', async () => {
    const api = http(stack.apiUrl, stack.keys.enterprise);
    await api('POST', '/v1/inboxes', {});
    const table = await dynamo().send(new DescribeTableCommand({ TableName: stack.table }));
    const index = table.Table!.GlobalSecondaryIndexes!.find((i) => i.IndexName === ACCOUNT_INDEX.name)!;
    expect(index.Projection).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: expect.arrayContaining([...ACCOUNT_INDEX.projected]) });
    const items = (await dynamo().send(new ScanCommand({ TableName: stack.table, IndexName: ACCOUNT_INDEX.name }))).Items ?? [];
    expect(items.length).toBeGreaterThan(0);
    // Keys, webhooks, address claims and messages carry no index key: only inbox items are in it.
    expect([...new Set(items.map((i) => i.sk.S))]).toEqual([INBOX_SK]);
    const allowed = new Set(['pk', 'sk', ACCOUNT_INDEX.partitionKey, ACCOUNT_INDEX.sortKey, ...ACCOUNT_INDEX.projected]);
    expect(items.flatMap((i) => Object.keys(i)).filter((a) => !allowed.has(a))).toEqual([]);
  });

  it('8: mail whose virus verdict is FAIL is kept and shown, its raw form refused with 403 and a reason, its attachments without a link', async () => {
    const api = http(stack.apiUrl, stack.keys.enterprise);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    // SES's verdict, as the template form's receipt rule gives it on request (X-Local-Ses-Verdicts).
    await sendMail(stack.smtpPort, { to: inbox.email, subject: 'infected', text: 'code 482913', headers: { 'X-Local-Ses-Verdicts': 'virus=FAIL' }, attachments: [{ filename: 'payload.exe', content: 'MZ' }] });
    const [message] = await messagesOf(stack.keys.enterprise, inbox.id);
    const shown = await api('GET', `/v1/inboxes/${inbox.id}/messages/${message.id}`);
    expect(shown.body).toMatchObject({ subject: 'infected', auth: { virus: 'FAIL' }, attachments: [expect.objectContaining({ filename: 'payload.exe', download_url: null })] });
    expect(expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages/${message.id}/raw`), 403)).toBe(
      `message ${message.id} failed the virus scan (auth.virus FAIL): its raw form and attachments are not served`,
    );
  }, 90_000);

  // Last: it stops this file's stack to read the IAM gate's evidence of what the ingest function called.
  it("7: a mail's attachments are uploaded once and copied server-side (CopyObject) to each further inbox", async () => {
    const key = stack.keys.enterprise;
    const api = http(stack.apiUrl, key);
    const inboxes = [(await api('POST', '/v1/inboxes', {})).body, (await api('POST', '/v1/inboxes', {})).body, (await api('POST', '/v1/inboxes', {})).body];
    await withAttachment(inboxes.map((i) => i.email), 'to three');
    for (const inbox of inboxes) await messagesOf(key, inbox.id);
    const attachmentsOf = async (id: string) => (await objectsUnder(blobKeys.inbox(id))).filter((k) => !/\/(raw\.eml|body\.json)$/.test(k));
    const perInbox = await Promise.all(inboxes.map((i) => attachmentsOf(i.id)));
    for (const keys of perInbox) expect(keys).toHaveLength(2);
    await stack.stop();
    const ingest = Object.keys(readEvidence(evidenceFile).policies).find((fn) => /Ingest/.test(fn) && !/Dead/.test(fn))!;
    const calls = readEvidence(evidenceFile).calls.filter((c) => c.functionLogicalId === ingest);
    const objectArn = (k: string) => `arn:aws:s3:::${stack.bucket}/${k}`;
    // Copies read their source (s3:GetObject, with the write's s3:PutObject): each of the first inbox's attachments
    // was read as a copy source; ingest reads no attachment otherwise.
    const read = new Set(calls.filter((c) => c.action === 's3:GetObject').map((c) => c.resource));
    const sources = perInbox.filter((keys) => keys.every((k) => read.has(objectArn(k))));
    expect(sources).toHaveLength(1);
    for (const keys of perInbox) for (const k of keys) expect(calls).toContainEqual({ functionLogicalId: ingest, action: 's3:PutObject', resource: objectArn(k) });
  }, 120_000);
});
