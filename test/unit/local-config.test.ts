/** The local stack's settings (local/config.ts): seeded keys must not be guessable, and a bad one stops the start. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFromEnv as functionConfigFromEnv } from '../../lambdas/config/app-config';
import { configFromEnv, parseSeedKeys } from '../../local/config';

it('takes seeded keys of at least 24 characters of A-Z a-z 0-9 _ -', () => {
  const key = `tm_ci_${'0123456789abcdef'.repeat(2)}`;
  expect(parseSeedKeys(`dev:${key}, enterprise:${'A-z_9'.repeat(5)}`)).toEqual([
    { plan: 'dev', key },
    { plan: 'enterprise', key: 'A-z_9'.repeat(5) },
  ]);
  for (const bad of ['dev:my-ci-key', `dev:${'x'.repeat(23)}`, `dev:${'x'.repeat(30)}!`, `dev:${'é'.repeat(30)}`, `dev:${'x'.repeat(201)}`]) {
    expect(() => parseSeedKeys(bad)).toThrow(/TEMPMAIL_SEED_KEYS: the dev key must be 24 to 200 characters of A-Z a-z 0-9 _ -/);
  }
});

it('refuses to start with a guessable seeded key, in one line that says why', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-seed-'));
  try {
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', path.resolve(__dirname, '../../local/main.ts')], {
      env: { PATH: process.env.PATH ?? '', TMPDIR: os.tmpdir(), TEMPMAIL_DATA_DIR: dataDir, PORT: '0', SMTP_PORT: '0', TEMPMAIL_SEED_KEYS: 'dev:my-ci-key' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^local stack cannot start: TEMPMAIL_SEED_KEYS: the dev key must be 24 to 200 characters .* \(it has 9\)/)]);
    expect(run.stdout).not.toContain('READY');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

it('reads TEMPMAIL_NO_DEV_KEY as the other flags: 0 or 1, anything else refused by name', () => {
  expect(configFromEnv({ TEMPMAIL_NO_DEV_KEY: '1' }).printDevKey).toBe(false);
  expect(configFromEnv({ TEMPMAIL_NO_DEV_KEY: '0' }).printDevKey).toBe(true);
  expect(configFromEnv({}).printDevKey).toBe(true);
  // `true` was taken silently as "keep the dev key".
  expect(() => configFromEnv({ TEMPMAIL_NO_DEV_KEY: 'true' })).toThrow('TEMPMAIL_NO_DEV_KEY must be 0 or 1, not "true"');
});

it('reads an unset TEMPMAIL_STORE as the embedded store in both readers: the local stack and a function', () => {
  expect(configFromEnv({}).store).toBe('embedded');
  const local = { TEMPMAIL_DATA_DIR: path.join(os.tmpdir(), 'tempmail-unused'), TEMPMAIL_PUBLIC_URL: 'http://127.0.0.1:3000' };
  expect(functionConfigFromEnv(local).store).toEqual({ kind: 'embedded', dataDir: local.TEMPMAIL_DATA_DIR, publicUrl: local.TEMPMAIL_PUBLIC_URL });
  // A function is told its store (lib/functions.ts); without it, it stops naming what the default needs.
  expect(() => functionConfigFromEnv({ TABLE_NAME: 't', BUCKET_NAME: 'b' })).toThrow('TEMPMAIL_DATA_DIR is required with TEMPMAIL_STORE=embedded');
  expect(functionConfigFromEnv({ TEMPMAIL_STORE: 'dynamodb', TABLE_NAME: 't', BUCKET_NAME: 'b' }).store).toEqual({ kind: 'dynamodb', table: 't', bucket: 'b' });
});
