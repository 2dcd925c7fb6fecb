/**
 * The `tempmail` command as a user runs it after `npm ci` (node_modules/.bin/tempmail, what `npx tempmail` runs):
 * against the running stack's data folder, stdout carries only the key, stderr says which data it used; its help,
 * version and usage errors as a first-time user meets them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PLAN_NAMES } from '../../lambdas/core/plans';
import { http } from '../support/http';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const ROOT = path.resolve(__dirname, '..', '..');
const tempmail = (args: string[], dataDir: string) =>
  spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tempmail'), args, { cwd: ROOT, env: { ...process.env, TEMPMAIL_DATA_DIR: dataDir }, encoding: 'utf8', timeout: 60_000 });

(stack.store === 'embedded' ? describe : describe.skip)('tempmail keys', () => {
  it('creates a key on the running stack: one line on stdout, usable at once; stderr names the data folder', () => {
    const run = tempmail(['keys', 'create', '--plan', 'dev'], stack.dataDir);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^tm_[0-9a-z]{40}\n$/);
    expect(run.stderr).toContain(`embedded data folder ${stack.dataDir} (running stack)`);
    return http(stack.apiUrl, run.stdout.trim())('GET', '/v1/domains').then((reply) => expect(reply.status).toBe(200));
  });

  it('lists and revokes by hash, never printing a key', async () => {
    const key = tempmail(['keys', 'create', '--plan', 'startup'], stack.dataDir).stdout.trim();
    const listed = tempmail(['keys', 'list', '--json'], stack.dataDir);
    expect(listed.stdout).not.toContain(key);
    const hashes = (JSON.parse(listed.stdout) as { key_hash: string; hint: string }[]).map((k) => k.key_hash);
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(key).digest('hex');
    expect(hashes).toContain(hash);
    expect(tempmail(['keys', 'revoke', hash], stack.dataDir).status).toBe(0);
    expect((await http(stack.apiUrl, key)('GET', '/v1/domains')).status).toBe(401);
  });

  it("run from a subfolder of the project, without TEMPMAIL_DATA_DIR, uses the project's .tempmail: the key works on the running stack", async () => {
    // A project whose .tempmail is the running stack's data folder; the command runs two folders below its root.
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-project-'));
    fs.symlinkSync(stack.dataDir, path.join(project, '.tempmail'));
    const below = path.join(project, 'docs', 'deeper');
    fs.mkdirSync(below, { recursive: true });
    const { TEMPMAIL_DATA_DIR: _unset, ...env } = process.env;
    const run = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tempmail'), ['keys', 'create', '--plan', 'dev'], { cwd: below, env, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(`embedded data folder ${path.join(project, '.tempmail')} (running stack)`);
    expect(fs.existsSync(path.join(below, '.tempmail'))).toBe(false);
    expect((await http(stack.apiUrl, run.stdout.trim())('GET', '/v1/domains')).status).toBe(200);
    fs.rmSync(project, { recursive: true, force: true });
  });

  it('refuses to list or revoke in a folder without TempMail data, and writes nothing there', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cli-'));
    const mistyped = path.join(empty, 'nothing-here');
    for (const args of [['keys', 'list'], ['keys', 'revoke', 'tm_x']]) {
      const run = tempmail(args, mistyped);
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`${mistyped} holds no TempMail data; is TEMPMAIL_DATA_DIR right?`);
    }
    expect(fs.existsSync(mistyped)).toBe(false);
    fs.rmSync(empty, { recursive: true, force: true });
  });

  it('makes the folder, private to its owner, for keys create before the first start (and says so)', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cli-'));
    const fresh = path.join(empty, 'new-folder');
    const run = tempmail(['keys', 'create', '--plan', 'dev'], fresh);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^tm_[0-9a-z]{40}\n$/);
    expect(run.stderr).toContain('held no TempMail data (made now)');
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o700);
    for (const file of fs.readdirSync(fresh).filter((f) => f.startsWith('tempmail.db'))) expect(fs.statSync(path.join(fresh, file)).mode & 0o077).toBe(0);
    fs.rmSync(empty, { recursive: true, force: true });
  });
});

describe('tempmail help, --version and usage errors', () => {
  // A folder that must stay absent: no help or usage error may touch the data folder.
  const untouched = path.join(os.tmpdir(), `tempmail-cli-help-${process.pid}`);
  const run = (...args: string[]) => tempmail(args, untouched);
  afterAll(() => expect(fs.existsSync(untouched)).toBe(false));

  it.each([['help'], ['--help'], ['-h']])('%s prints the usage of every command and the environment, exit 0', (flag) => {
    const shown = run(flag);
    expect(shown).toMatchObject({ status: 0, stderr: '' });
    for (const line of ['tempmail serve', 'tempmail keys create --plan', 'tempmail keys list', 'tempmail keys revoke <key or key hash>', 'tempmail replay --stack NAME', 'tempmail env', 'tempmail --version', '--region R', 'TEMPMAIL_DATA_DIR', 'AWS_REGION']) {
      expect(shown.stdout).toContain(line);
    }
  });

  it.each([
    ['keys create', ['--plan', '--json', '--stack NAME', '--region R'], [], ['TEMPMAIL_DATA_DIR', 'AWS_REGION']],
    ['keys list', ['--json', '--stack NAME', '--region R'], ['--plan'], ['TEMPMAIL_DATA_DIR', 'AWS_REGION']],
    ['keys revoke', ['--stack NAME', '--region R'], ['--plan', '--json'], ['TEMPMAIL_DATA_DIR', 'AWS_REGION']],
    ['replay', ['--stack NAME', '--region R'], ['--plan', '--json', 'TEMPMAIL_DATA_DIR'], ['AWS_REGION']],
    ['serve', [], ['--plan', '--json', '--stack NAME', 'AWS_REGION'], ['PORT, SMTP_PORT', 'TEMPMAIL_DATA_DIR']],
    ['env', [], ['--plan', '--json', '--stack NAME', 'AWS_REGION'], ['TEMPMAIL_DATA_DIR']],
  ])('%s --help shows that command\'s options and the environment it reads (help <command> the same)', (command, options, absent, environment) => {
    const shown = run(...command.split(' '), '--help');
    expect(shown).toMatchObject({ status: 0, stderr: '' });
    expect(shown.stdout.split('\n')[0]).toMatch(new RegExp(`^usage: tempmail ${command}( |$)`));
    const [usage, env] = shown.stdout.split('environment:\n');
    for (const option of options) expect(usage).toMatch(new RegExp(`^  ${option}`, 'm'));
    for (const name of environment) expect(env).toContain(name);
    for (const other of absent) expect(shown.stdout).not.toContain(other);
    expect(run('help', ...command.split(' ')).stdout).toBe(shown.stdout);
  });

  it('keys --help shows the three keys commands; keys alone names them, exit 2', () => {
    const shown = run('keys', '--help');
    expect(shown.status).toBe(0);
    for (const command of ['keys create', 'keys list', 'keys revoke']) expect(shown.stdout).toContain(`usage: tempmail ${command}`);
    const bare = run('keys');
    expect(bare).toMatchObject({ status: 2, stdout: '' });
    expect(bare.stderr).toBe('tempmail: keys needs a command: keys create, keys list, keys revoke; see tempmail --help\n');
  });

  it('--version prints the package version, exit 0', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(run('--version')).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('an unknown command names the commands that exist, in one line, exit 2', () => {
    const wrong = run('frobnicate');
    expect(wrong).toMatchObject({ status: 2, stdout: '' });
    expect(wrong.stderr).toBe('tempmail: unknown command: frobnicate (commands: serve, keys create, keys list, keys revoke, replay, env, help); see tempmail --help\n');
  });

  it.each([
    [['keys', 'create', '--plna', 'dev'], 'unknown option --plna for keys create (its options: --plan, --json, --stack, --region, --help)'],
    [['keys', 'create'], `--plan is required: one of ${PLAN_NAMES.join(', ')}`],
    [['keys', 'create', '--plan', 'gold'], `--plan must be one of ${PLAN_NAMES.join(', ')}, not "gold"`],
    [['keys', 'list', '--version'], 'unknown option --version for keys list (its options: --json, --stack, --region, --help)'],
    [['--verbose'], 'unknown option --verbose before a command (commands: serve, keys create, keys list, keys revoke, replay, env, help)'],
    [['keys', 'create', '--plan'], `--plan needs a value (--plan <${PLAN_NAMES.join('|')}>)`],
    [['keys', 'create', '--plan', '--json'], `--plan needs a value (--plan <${PLAN_NAMES.join('|')}>)`],
    [['keys', 'list', '--json=yes'], '--json takes no value'],
  ])('%j is refused in one line naming the option, not the option parser\'s text, exit 2', (args, message) => {
    const wrong = run(...args);
    expect(wrong).toMatchObject({ status: 2, stdout: '', stderr: `tempmail: ${message}; see tempmail --help\n` });
  });
});
