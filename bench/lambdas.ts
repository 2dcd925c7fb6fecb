/**
 * `npm run bench:lambdas`: for every function that deploys, the size of its bundle (built exactly as NodejsFunction
 * builds it) and its cold start here: a fresh node process loads the bundle (require) and answers one first request,
 * against the local stack's DynamoDB Local and S3 where the handler needs storage.
 *
 * What this measures is this machine's Node, not Lambda's: Lambda's own cold start adds the sandbox and runtime
 * start (typically 100-200 ms on arm64) before the module load measured here. Node process start-up is excluded.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { localAwsEnv, LOCAL_BUCKET, LOCAL_TABLE } from '../local/aws-env';
import { AUTHORIZER_HANDLER, INGEST_HANDLER, DEPLOYED_ROUTES } from '../lambdas/layout/functions';
import { bundleLambdas } from '../scripts/bundle-lambdas';
import { eventually, sendMail } from '../test/support/mail';
import { startStack, type StackHandle } from '../test/support/stack';

const API_BUNDLE_LIMIT_KB = 300;
const FIRST_REQUEST_TARGET_MS = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

/** Runs in the fresh process: time the require, then the first invocation, and print both with the answer. */
const PROBE = `
const t0 = performance.now();
const mod = require(process.env.BENCH_BUNDLE);
const t1 = performance.now();
const ctx = { awsRequestId: 'bench', functionName: 'bench', getRemainingTimeInMillis: () => 30000, callbackWaitsForEmptyEventLoop: false };
Promise.resolve(mod.handler(JSON.parse(process.env.BENCH_EVENT), ctx)).then(
  (r) => finish(r && r.statusCode !== undefined ? String(r.statusCode) : r && r.policyDocument ? r.policyDocument.Statement[0].Effect : JSON.stringify(r)),
  (e) => finish('threw ' + e.message),
);
function finish(answer) {
  const t2 = performance.now();
  process.stdout.write(JSON.stringify({ requireMs: t1 - t0, firstMs: t2 - t1, answer }) + '\\n');
  process.exit(0);
}`;

interface Probe {
  requireMs: number;
  firstMs: number;
  answer: string;
}

function probe(bundle: string, event: unknown, env: Record<string, string>): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', PROBE], {
      env: { ...process.env, ...env, BENCH_BUNDLE: bundle, BENCH_EVENT: JSON.stringify(event), POWERTOOLS_LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', () => {
      const line = out.trim().split('\n').pop();
      try {
        resolve(JSON.parse(line ?? '') as Probe);
      } catch {
        reject(new Error(`probe of ${bundle} printed no result: ${err.slice(0, 500)}`));
      }
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function apiEvent(route: (typeof DEPLOYED_ROUTES)[number], params: Record<string, string>, account: { accountId: string; plan: string }, query: Record<string, string> = {}, body?: string) {
  const pathname = route.path.replace(/\{(\w+)\}/g, (_, n: string) => params[n]);
  return {
    resource: route.path,
    path: pathname,
    httpMethod: route.method,
    headers: { 'content-type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: Object.keys(query).length ? query : null,
    multiValueQueryStringParameters: null,
    pathParameters: Object.keys(params).length ? params : null,
    stageVariables: null,
    body: body ?? null,
    isBase64Encoded: false,
    requestContext: { accountId: '000000000000', apiId: 'bench', authorizer: account, httpMethod: route.method, path: pathname, requestId: 'bench', resourcePath: route.path, stage: 'bench', requestTimeEpoch: Date.now(), identity: { sourceIp: '127.0.0.1' } },
  };
}

async function main() {
  // Inside the repository, so the external @aws-sdk/* resolve from node_modules as the Lambda runtime provides them.
  const bundleDir = path.join(__dirname, '..', '.bench', 'lambdas');
  const bundles = await bundleLambdas(bundleDir);
  // The bundles run as Lambda runs them, configured by the environment alone: on the stand-ins, the AWS adapters.
  const stack = await startStack({ store: 'dynamodb' });
  try {
    // One real inbox with one real message (SMTP → S3 → ingest), so reads answer 200 as in production.
    const headers = { 'X-API-Key': stack.keys.enterprise, 'content-type': 'application/json' };
    const inbox = (await (await fetch(`${stack.apiUrl}/v1/inboxes`, { method: 'POST', headers, body: '{}' })).json()) as { id: string; email: string };
    await sendMail(stack.smtpPort, { to: inbox.email, subject: 'Your code is 123456', text: 'Use 123456 to sign in.' });
    const listed = await eventually(async () => {
      const body = (await (await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}/messages`, { headers })).json()) as { messages: { id: string }[] };
      return body.messages?.length ? body : null;
    }, 20_000, 'the bench message');
    const messageId = listed.messages[0].id;
    const account = { accountId: await accountOf(stack), plan: 'enterprise' };

    const env = {
      ...localAwsEnv({ dynamoEndpoint: stack.dynamoEndpoint!, s3Endpoint: stack.s3Endpoint!, table: LOCAL_TABLE, bucket: LOCAL_BUCKET }),
      TEMPMAIL_DOMAINS: stack.domains.join(','),
    };
    const inboxParams = { inbox_id: inbox.id };
    const messageParams = { inbox_id: inbox.id, message_id: messageId };
    const events: Record<string, () => unknown> = {
      createInbox: () => apiEvent(route('createInbox'), {}, account, {}, '{}'),
      getInbox: () => apiEvent(route('getInbox'), inboxParams, account),
      listMessages: () => apiEvent(route('listMessages'), inboxParams, account),
      waitForMessage: () => apiEvent(route('waitForMessage'), inboxParams, account, { timeout: '1' }),
      getMessage: () => apiEvent(route('getMessage'), messageParams, account),
      getRawMessage: () => apiEvent(route('getRawMessage'), messageParams, account),
      listDomains: () => apiEvent(route('listDomains'), {}, account),
      getOpenApi: () => apiEvent(route('getOpenApi'), {}, account),
      // Deletes name ids that do not exist (answer 404 after reading the table), so the inbox stays intact for the rest.
      deleteMessage: () => apiEvent(route('deleteMessage'), { inbox_id: inbox.id, message_id: 'msg_01m81tcwveknn0wt3qhyyczz8t' }, account),
      deleteInbox: () => apiEvent(route('deleteInbox'), { inbox_id: 'inbox_aaaaaaaaaaaaaaaaaaaa' }, account),
      listInboxes: () => apiEvent(route('listInboxes'), {}, account, { limit: '10' }),
      listWebhooks: () => apiEvent(route('listWebhooks'), {}, account),
      // Names a webhook that does not exist: 404 after reading the table.
      getWebhook: () => apiEvent(route('getWebhook'), { webhook_id: 'wh_aaaaaaaaaaaaaaaaaaaa' }, account),
    };
    const authorizerEvent = { type: 'REQUEST', methodArn: 'arn:aws:execute-api:us-east-1:000000000000:bench/prod/GET/v1/domains', headers: { 'X-API-Key': stack.keys.dev } };
    const ingestEvent = {
      Records: [{ eventSource: 'aws:ses', ses: { mail: { messageId: 'bench-unknown', source: 'a@example.com', timestamp: new Date().toISOString() }, receipt: { recipients: [`nobody@${stack.domains[0]}`], timestamp: new Date().toISOString() } } }],
    };

    const rows: { fn: string; kb: number; requireMs: number; firstMs: number; answer: string; api: boolean }[] = [];
    // The routes with an event above; the other webhook routes load the same code as these, the viewer's serve files.
    const order = DEPLOYED_ROUTES.map((r) => r.name).filter((name) => name in events);
    for (const name of order) {
      const r = route(name);
      const bundle = bundles.find((b) => b.handler === r.handler)!;
      rows.push({ fn: name, kb: bundle.bytes / 1024, api: true, ...(await measure(bundle.file, events[name], env)) });
    }
    const authorizer = bundles.find((b) => b.handler === AUTHORIZER_HANDLER)!;
    rows.push({ fn: 'authorizer', kb: authorizer.bytes / 1024, api: true, ...(await measure(authorizer.file, () => authorizerEvent, env)) });
    const ingest = bundles.find((b) => b.handler === INGEST_HANDLER)!;
    rows.push({ fn: 'ingest', kb: ingest.bytes / 1024, api: false, ...(await measure(ingest.file, () => ingestEvent, env)) });

    console.log(`Lambda bundles (minified CJS, @aws-sdk external) and cold start in a fresh node ${process.version} process, median of ${RUNS}`);
    console.log('function            bundle KB   require ms   first request ms   total ms   answer');
    for (const row of rows) {
      const flags = [row.api && row.kb > API_BUNDLE_LIMIT_KB ? `> ${API_BUNDLE_LIMIT_KB} KB` : '', row.requireMs + row.firstMs > FIRST_REQUEST_TARGET_MS ? `> ${FIRST_REQUEST_TARGET_MS} ms` : ''].filter(Boolean).join(', ');
      console.log(
        `${row.fn.padEnd(18)} ${row.kb.toFixed(1).padStart(10)} ${row.requireMs.toFixed(1).padStart(12)} ${row.firstMs.toFixed(1).padStart(18)} ${(row.requireMs + row.firstMs).toFixed(1).padStart(10)}   ${row.answer}${flags ? `   (${flags})` : ''}`,
      );
    }
  } finally {
    await stack.stop();
    fs.rmSync(bundleDir, { recursive: true, force: true });
  }
}

function route(name: string) {
  const found = DEPLOYED_ROUTES.find((r) => r.name === name);
  if (!found) throw new Error(`no route ${name}`);
  return found;
}

async function measure(file: string, event: () => unknown, env: Record<string, string>) {
  const runs: Probe[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await probe(file, event(), env));
  return { requireMs: median(runs.map((r) => r.requireMs)), firstMs: median(runs.map((r) => r.firstMs)), answer: [...new Set(runs.map((r) => r.answer))].join('/') };
}

/** The enterprise key's account: the authorizer would put it in the request context. */
async function accountOf(stack: StackHandle): Promise<string> {
  const { storesFor } = await import('../test/support/store');
  const { hashApiKey } = await import('../lambdas/core/ids');
  const record = await storesFor(stack).keys.getKey(hashApiKey(stack.keys.enterprise));
  if (!record) throw new Error('the stack has no enterprise key');
  return record.account_id;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
