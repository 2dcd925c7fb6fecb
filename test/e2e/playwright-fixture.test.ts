/**
 * The Playwright fixture (tempmail-client/playwright, issue 24 item 6) in a real Playwright run: @playwright/test's own
 * runner, as a child process, on the project in test/fixtures/playwright, with Chromium from the machine. Its tests
 * sign up on a small local app whose form makes the app send mail over real SMTP to the shared stack, then read the
 * mail through the fixture's inbox and follow its link (or type in its code) in the browser. Asserted here from the
 * runner's JSON report and from outside: the app saw each address confirmed, and each test's group is gone after it,
 * the failing test's too. The client is built first: the project imports the package as a user would (client/dist).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { usernameFor } from '../../lambdas/core/address';
import { chromiumPath } from '../support/browser';
import { http } from '../support/http';
import { sharedStack } from '../support/shared';
import { startSignupApp, type SignupApp } from '../support/signup-app';

const ROOT = path.resolve(__dirname, '../..');
const PROJECT = path.join(ROOT, 'test/fixtures/playwright');
const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);

interface ReportTest {
  status: 'expected' | 'unexpected' | 'flaky' | 'skipped';
  annotations: { type: string; description?: string }[];
  results: { status: string; error?: { message?: string } }[];
}
interface ReportSuite {
  specs: { title: string; tests: ReportTest[] }[];
  suites?: ReportSuite[];
}
interface Report {
  suites: ReportSuite[];
  errors: { message?: string }[];
  stats: { expected: number; unexpected: number; flaky: number; skipped: number; duration: number };
}

const specs = (suites: ReportSuite[]): { title: string; test: ReportTest }[] => suites.flatMap((s) => [...s.specs.map((spec) => ({ title: spec.title, test: spec.tests[0] })), ...specs(s.suites ?? [])]);
/** The inboxes a test had, from the fixture's annotations: `<address> (group <group>)`. */
const inboxesOf = (test: ReportTest) =>
  test.annotations.filter((a) => a.type === 'tempmail').map((a) => /^(\S+@\S+) \(group ([a-z0-9._-]+)\)$/.exec(a.description ?? '')!).map(([, email, group]) => ({ email, group }));

let app: SignupApp;
let report: Report;
let work: string;

beforeAll(async () => {
  execFileSync('npm', ['run', 'build', '-w', 'client'], { cwd: ROOT, stdio: 'ignore' });
  app = await startSignupApp(stack.smtpPort);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-playwright-'));
  const reportFile = path.join(work, 'report.json');
  // Asynchronous: the app answering the browser runs in this process, so the event loop must stay free.
  await new Promise<void>((resolve, reject) => {
    execFile(
      path.join(ROOT, 'node_modules/.bin/playwright'),
      ['test', '-c', path.join(PROJECT, 'playwright.config.ts')],
      {
        cwd: PROJECT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          TEMPMAIL_API_KEY: stack.keys.enterprise,
          TEMPMAIL_API_URL: stack.apiUrl,
          APP_URL: app.url,
          CHROMIUM_PATH: chromiumPath(),
          PLAYWRIGHT_JSON_OUTPUT_NAME: reportFile,
          PLAYWRIGHT_OUTPUT_DIR: path.join(work, 'output'),
        },
        timeout: 150_000,
      },
      // Exit 1 when a test failed unexpectedly: the report says which, and the assertions below show it.
      (error, stdout, stderr) => (fs.existsSync(reportFile) ? resolve() : reject(new Error(`no report from playwright test (${error?.message}):\n${stdout}\n${stderr}`))),
    );
  });
  report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Report;
  console.log(`playwright test: ${Math.round(report.stats.duration / 1000)} s for ${specs(report.suites).length} tests (2 workers, Chromium)`);
}, 180_000);

afterAll(async () => {
  await app?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

it('runs every test of the project as meant: three pass, the one marked test.fail() fails', () => {
  const outcomes = specs(report.suites).map(({ title, test }) => [title, test.status, test.results.map((r) => r.status), test.results[0]?.error?.message ?? null]);
  expect(report.errors).toEqual([]);
  expect(outcomes).toEqual([
    ['signs up and follows the link in the mail', 'expected', ['passed'], null],
    ['types in the code from the mail', 'expected', ['passed'], null],
    ['says what arrived when the wait fails, and which links matched', 'expected', ['passed'], null],
    ['a failing test still has its inbox deleted', 'expected', ['failed'], expect.stringMatching(/waiting for subject contains "never sent": expected 1 matching message within 1 s; none arrived/)],
  ]);
  expect(report.stats).toMatchObject({ expected: 4, unexpected: 0, flaky: 0 });
});

it('gave each test an inbox of its own in a group of its own, named after the test', () => {
  const all = specs(report.suites).map(({ title, test }) => ({ title, inboxes: inboxesOf(test) }));
  expect(all.map((t) => t.inboxes.length)).toEqual([1, 1, 2, 1]);
  const groups = all.map((t) => t.inboxes[0].group);
  expect(new Set(groups).size).toBe(4);
  for (const group of groups) expect(group).toMatch(/^pw-signup-[0-9a-f]{8}$/);
  // The username is derived from the group and the test's name (the title path without the file).
  expect(all[0].inboxes[0].email.split('@')[0]).toBe(usernameFor(groups[0], 'signs up and follows the link in the mail'));
  expect(all[2].inboxes[1].group).toBe(all[2].inboxes[0].group);
});

it('the browser followed the link and typed in the code: the app confirmed those two addresses', () => {
  const [linked, coded] = specs(report.suites).map(({ test }) => inboxesOf(test)[0].email);
  expect([...app.confirmed].sort()).toEqual([linked, coded].sort());
});

it("deleted each test's group after it, the failing test's too", async () => {
  const groups = [...new Set(specs(report.suites).flatMap(({ test }) => inboxesOf(test).map((i) => i.group)))];
  expect(groups).toHaveLength(4);
  for (const group of groups) expect((await api('GET', `/v1/inboxes?group=${group}`)).body).toEqual({ inboxes: [] });
});
