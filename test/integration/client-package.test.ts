/**
 * The client as a package: built to JavaScript (client/dist), imported by a plain `.mjs` file through the workspace
 * link, against the shared stack for create → SMTP → waitForMessage → read → delete, and against a stack of its own
 * whose dev plan allows 30 requests a minute, for the 429 retry.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { burstOf, loadPlans } from '../../lambdas/core/plans';
import { sharedStack } from '../support/shared';
import { startStack, type StackHandle } from '../support/stack';

const ROOT = path.resolve(__dirname, '../..');
const TINY_PLAN = { dev: { requests_per_minute: 30 } }; // 0.5 requests a second: Retry-After 2 s
const shared = sharedStack();
let tiny: StackHandle;

beforeAll(async () => {
  execFileSync('npm', ['run', 'build', '-w', 'client'], { cwd: ROOT, stdio: 'ignore' });
  tiny = await startStack({ env: { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify(TINY_PLAN) } });
}, 90_000);
afterAll(() => tiny?.stop());

it('works from plain JavaScript: create, SMTP, waitForMessage, read, delete; and waits out 429s', () => {
  const output = execFileSync(process.execPath, [path.join(ROOT, 'test/fixtures/client-from-javascript.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      API_URL: shared.apiUrl,
      API_KEY: shared.keys.enterprise,
      SMTP_PORT: String(shared.smtpPort),
      TINY_API_URL: tiny.apiUrl,
      TINY_API_KEY: tiny.keys.dev,
      TINY_BURST: String(burstOf(loadPlans(JSON.stringify(TINY_PLAN)).dev)),
    },
    timeout: 60_000,
  });
  const summary = JSON.parse(output.trim().split('\n').pop()!);
  expect(summary).toMatchObject({ message: expect.stringMatching(/^msg_/), throttled: expect.any(Number), retryAfter: '2' });
  expect(summary.throttled).toBeGreaterThan(0);
}, 90_000);

it("loads in a user's jest suite as jest runs it by default (CommonJS, no ESM mode): the package's require build", () => {
  // The package is ESM; jest's own loader cannot require ESM on Node 20, so the exports map has a "require" build
  // (client/dist/cjs). The fixture is run by a jest of its own, with no configuration of ours.
  const fixture = path.join(ROOT, 'test/fixtures/cjs-jest');
  const run = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--rootDir', fixture, '--config', JSON.stringify({ testMatch: ['**/*.spec.cjs'], transform: {} }), '--ci'], {
    cwd: fixture,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', TEMPMAIL_API_URL: shared.apiUrl, TEMPMAIL_API_KEY: shared.keys.enterprise },
    timeout: 60_000,
  });
  expect({ status: run.status, report: run.stderr }).toMatchObject({ status: 0, report: expect.stringMatching(/Tests:\s+1 passed, 1 total/) });
});

it('refuses ids a URL would resolve into another path, before any request: the inbox survives deleteMessage(id, "..")', async () => {
  const { TempMailClient } = await import('../../client/src');
  const client = new TempMailClient({ apiKey: shared.keys.enterprise, baseUrl: shared.apiUrl });
  const inbox = await client.createInbox();
  for (const id of ['..', '.', '']) {
    await expect(client.deleteMessage(inbox.id, id)).rejects.toThrow(TypeError);
    await expect(client.getMessage(inbox.id, id)).rejects.toThrow(`not an id: ${JSON.stringify(id)}`);
    await expect(client.getWebhook(id)).rejects.toThrow(TypeError);
    await expect(client.getInbox(id)).rejects.toThrow(TypeError);
  }
  expect((await client.getInbox(inbox.id)).id).toBe(inbox.id);
  await client.deleteInbox(inbox.id);
});
