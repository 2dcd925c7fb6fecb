/**
 * What deploys is what is tested: the esbuild bundles the CDK stack deploys (scripts/bundle-lambdas.ts, same options
 * as NodejsFunction) run the local stack, and a full flow — key, inbox, SMTP mail, read, attachment, delete — works.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleLambdas } from '../../scripts/bundle-lambdas';
import { INGEST_HANDLER, DEPLOYED_ROUTES, ROUTE_FUNCTIONS } from '../../lambdas/layout/functions';
import { expectError, http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';

// Inside the repository, so the bundles' external @aws-sdk/* resolve from node_modules as the Lambda runtime provides them.
const bundleDir = path.resolve(__dirname, '../../dist', `test-bundles-${process.pid}`);
let stack: StackHandle;
let built: Awaited<ReturnType<typeof bundleLambdas>>;

beforeAll(async () => {
  built = await bundleLambdas(bundleDir);
  // One per handler: the routes' (the viewer's two share none), the authorizer, ingest, the webhook dispatcher and
  // sender, the inbox cleanup.
  expect(built).toHaveLength(new Set(DEPLOYED_ROUTES.map((r) => r.handler)).size + 5);
  stack = await startStack({ env: { TEMPMAIL_BUNDLE_DIR: bundleDir } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  fs.rmSync(bundleDir, { recursive: true, force: true });
});

it('carries in each bundle only the adapters its function uses (lambdas/app/)', () => {
  // Markers: a statement of the embedded store's engine, and an error message of the MIME parser.
  const carries = (file: string, marker: string) => fs.readFileSync(file, 'utf8').includes(marker);
  const withSqlite = built.filter((b) => carries(b.file, 'BEGIN IMMEDIATE')).map((b) => b.handler);
  const withParser = built.filter((b) => carries(b.file, 'mailparser took longer than')).map((b) => b.handler);
  expect(withSqlite).toEqual([]);
  expect(withParser).toEqual([INGEST_HANDLER]);
  // mailauth (the checks' SPF/DKIM/DMARC verifier; its SPF option's name) only in the checks function.
  const withMailauth = built.filter((b) => carries(b.file, 'maxResolveCount')).map((b) => b.handler);
  expect(withMailauth).toEqual([ROUTE_FUNCTIONS.getMessageChecks.handler]);
  // caniemail's data (doiuse-email's message) likewise.
  const withCaniemail = built.filter((b) => carries(b.file, 'is only partially supported by')).map((b) => b.handler);
  expect(withCaniemail).toEqual([ROUTE_FUNCTIONS.getMessageChecks.handler]);
  // The link prober (its User-Agent): on AWS only the checks function requests the URLs a mail holds.
  const withProber = built.filter((b) => carries(b.file, 'TempMail-Checks/1.0')).map((b) => b.handler);
  expect(withProber).toEqual([ROUTE_FUNCTIONS.getMessageChecks.handler]);
  // RE2 (its loader names its WebAssembly file) only where a route says `re2`, and its file beside it.
  const withRe2 = built.filter((b) => carries(b.file, 're2.wasm')).map((b) => b.handler);
  expect(withRe2).toEqual(DEPLOYED_ROUTES.filter((r) => r.re2).map((r) => r.handler));
  for (const handler of withRe2) expect(fs.existsSync(path.join(bundleDir, path.dirname(handler), 're2.wasm'))).toBe(true);
});

it('serves the API and ingests mail from the deployed bundles', async () => {
  const api = http(stack.apiUrl, stack.keys.startup);
  const inbox = (await api('POST', '/v1/inboxes', { username: 'bundled' })).body;
  expect(inbox.email).toBe('bundled@tempmail.local');
  await sendMail(stack.smtpPort, {
    to: inbox.email,
    subject: 'Your code is 246810',
    text: 'code 246810',
    attachments: [{ filename: 'a.txt', content: 'attached' }],
  });
  const list = await eventually(async () => {
    const body = (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body;
    return body.messages?.length === 1 ? body : null;
  }, 15_000, 'the message');
  const full = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${list.messages[0].id}`)).body;
  // A regex condition runs RE2 from the WebAssembly file copied beside the wait's bundle (lib/re2-asset.ts).
  const waited = await api('POST', `/v1/inboxes/${inbox.id}/messages/wait`, { conditions: [{ field: 'subject', op: 'regex', value: '^Your code is \\d{6}$' }], timeout: 5 });
  expect(waited.body.messages?.[0]?.id).toBe(list.messages[0].id);
  expect(full.codes).toEqual(['246810']);
  expect(await (await fetch(full.attachments[0].download_url)).text()).toBe('attached');
  expectError(await http(stack.apiUrl, 'bad')('GET', '/v1/domains'), 401);
  expectError(await api('GET', '/v1/inboxes/inbox_00000000000000000000'), 404);
  expect((await api('DELETE', `/v1/inboxes/${inbox.id}`)).body).toEqual({ deleted: true });
  // The handlers that answered came from the bundle directory.
  expect(fs.existsSync(path.join(bundleDir, 'api', 'get-message.js'))).toBe(true);
});
