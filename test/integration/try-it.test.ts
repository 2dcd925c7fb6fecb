/**
 * The README's "Try it" block, run unchanged with bash against `npm start` (a stack of its own with a dev key, as a
 * first start makes): `npx tempmail env` finds the stack and its key, and the block makes an inbox, sends the mail
 * over SMTP, waits for it, lists it and empties the inbox. With no stack running, `tempmail env` says so and exits 1, so the block stops there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type StackHandle } from '../support/stack';
import { expectTryItWorked, runTryIt } from '../support/try-it';

let stack: StackHandle;

beforeAll(async () => {
  stack = await startStack({ form: 'local', dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-try-it-')), env: { TEMPMAIL_NO_DEV_KEY: '' } });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

it("runs the README's Try it block unchanged against npm start", async () => {
  expectTryItWorked(await runTryIt(stack.dataDir));
}, 90_000);

it('stops at its first line when no stack runs: tempmail env names the folder and exits 1', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-try-it-none-'));
  const run = await runTryIt(empty);
  expect(run.status).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr).toContain(`tempmail: no stack is running on ${empty}: start one with npm start or npm run start:aws`);
}, 60_000);
