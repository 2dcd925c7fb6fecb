/**
 * What only the template form (`npm run start:aws`, issue 21) shows: the synthesized template decides, not the
 * sources. A copy of the shared stack's template is changed the way a faulty construct would change it, run with
 * TEMPMAIL_TEMPLATE, and each change shows as it would on AWS:
 * - one function's Environment loses TABLE_NAME: that route fails, the others still serve;
 * - one function's role loses dynamodb:Query: its call is AccessDenied (the IAM gate, local/aws/iam), logged;
 * - one route's code is a fixture (test/fixtures/lambdas/sized-answer) with a 3 s Timeout: a call past it is killed
 *   and API Gateway answers 502; an answer over Lambda's 6 MB response limit is 502 too;
 * - the authorizer's result TTL (60 s in the template): a revoked key is still let through while its answer is
 *   cached, as on AWS.
 * Runs in the aws-template jest project only.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keyHint } from '../../lambdas/core/ids';
import { revokeKey } from '../../lambdas/usecases/keys';
import { expectError, http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { newTestKey } from '../support/keys';
import { sharedStack } from '../support/shared';
import { startStack, type StackHandle } from '../support/stack';
import { storesFor } from '../support/store';
import type { Json } from '../support/json';
type Dict = Record<string, Json>;


const shared = sharedStack();
let stack: StackHandle;
let dir: string;

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
  delete template.Resources[functionOf(template, 'createInbox')].Properties.Environment.Variables.TABLE_NAME;
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
  const fixture = template.Resources[functionOf(template, 'getOpenApi')];
  fixture.Metadata['aws:asset:path'] = 'asset.sized-answer';
  fixture.Properties.Timeout = 3;
  const file = path.join(dir, `${shared.aws!.stackName}.template.json`);
  fs.writeFileSync(file, JSON.stringify(template));
  // The template's authorizer cache (60 s), not the test stacks' 0.
  stack = await startStack({ form: 'aws-template', env: { TEMPMAIL_TEMPLATE: file, TEMPMAIL_AUTHORIZER_CACHE_SECONDS: '' } });
}, 330_000);

afterAll(async () => {
  await stack?.stop();
  await storesFor(stack).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('a function whose Environment lost TABLE_NAME fails its requests, as on AWS; the other functions serve', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const reply = await api('POST', '/v1/inboxes', {});
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

it('webhooks run the deployed chain: KMS seals the secret, the table stream feeds the dispatcher through its filters, SQS the sender, which applies the AWS rules', async () => {
  // On the shared template-form stack (this file's own has a broken createInbox).
  const api = http(shared.apiUrl, shared.keys.enterprise);
  // The deployed rules: https only, public addresses only (no setting relaxes them in a function).
  expectError(await api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook' }), 400);
  const inbox = (await api('POST', '/v1/inboxes', {})).body;
  // A global unicast address nothing routes to (3fff::/20, IPv6 documentation since RFC 9637): created, then each
  // attempt fails at delivery without Json traffic leaving the machine.
  const created = await api('POST', '/v1/webhooks', { url: 'https://[3fff::1]/hook', inbox_id: inbox.id });
  expect(created.status).toBe(201);
  expect(created.body.secret).toMatch(/^whsec_/);
  expect((await api('POST', `/v1/webhooks/${created.body.id}/test`)).status).toBe(202);
  await sendMail(shared.smtpPort, { to: inbox.email, subject: 'through the stream', text: 'hello' });
  // testWebhook → SQS → sender, and ingest → the table's stream → dispatcher → SQS → sender: each attempt recorded.
  const deliveries = await eventually(async () => {
    const reply = await api('GET', `/v1/webhooks/${created.body.id}/deliveries`);
    const types = (reply.body.deliveries ?? []).map((d: { event_type: string }) => d.event_type);
    return types.includes('webhook.test') && types.includes('message.received') ? reply.body.deliveries : null;
  }, 60_000, 'an attempt of each event');
  // Each attempt failed at delivery (and is retried on the schedule).
  for (const d of deliveries) expect(d).toMatchObject({ status: null, error: expect.any(String), outcome: 'retrying' });
}, 90_000);

it('the keys CLI, run as users run it (the bin), finds the running template form and its key works through the gateway and usage plan', async () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'cli', 'bin', 'tempmail.js'), ...args], {
      cwd: path.join(__dirname, '..', '..'),
      env: { ...process.env, TEMPMAIL_DATA_DIR: shared.dataDir },
      encoding: 'utf8',
    });
  const created = cli('keys', 'create', '--plan', 'dev');
  expect(created.status).toBe(0);
  expect(created.stderr).toMatch(/template form/);
  const key = created.stdout.trim();
  expect((await http(shared.apiUrl, key)('GET', '/v1/domains')).status).toBe(200);
  // The same with --stack, as on AWS.
  const listed = cli('keys', 'list', '--json', '--stack', shared.aws!.stackName);
  expect(listed.status).toBe(0);
  expect(JSON.parse(listed.stdout).map((k: { hint: string }) => k.hint)).toContain(keyHint(key));
});
