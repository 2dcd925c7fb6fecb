/**
 * The `tempmail` command as a user runs it after `npm ci` (node_modules/.bin/tempmail, what `npx tempmail` runs):
 * against the running stack's data folder, stdout carries only the key, stderr says which data it used.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
