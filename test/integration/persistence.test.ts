/** Data survives a restart of the local stack; the CLI manages keys with the stack running and stopped. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { http, expectError } from '../support/http';
import { startStack, type StackHandle } from '../support/stack';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../cli/bin/tempmail.js');

describe('local stack persistence', () => {
  let stack: StackHandle;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('keeps an inbox created before a restart', async () => {
    const api = http(stack.apiUrl, stack.keys.enterprise);
    const created = (await api('POST', '/v1/inboxes', { username: 'survivor', ttl: 3600 })).body;
    await stack.stop();
    await stack.restart();
    const reply = await api('GET', `/v1/inboxes/${created.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body.email).toBe('survivor@tempmail.local');
    expectError(await api('POST', '/v1/inboxes', { username: 'survivor' }), 409);
  });

  it('tempmail keys create/list/revoke work with the stack running, and stopped', async () => {
    const env = { ...process.env, TEMPMAIL_DATA_DIR: stack.dataDir };
    const created = JSON.parse((await run(process.execPath, [CLI, 'keys', 'create', '--plan', 'startup', '--json'], { env })).stdout);
    expect(created).toEqual({ key: expect.stringMatching(/^tm_[0-9a-z]{40}$/), plan: 'startup', account_id: expect.any(String), created_at: expect.any(String) });
    const api = http(stack.apiUrl, created.key);
    expect((await api('POST', '/v1/inboxes', {})).status).toBe(201);

    const listed = JSON.parse((await run(process.execPath, [CLI, 'keys', 'list', '--json'], { env })).stdout) as { hint: string; key_hash: string }[];
    expect(listed.some((k) => created.key.startsWith(k.hint.slice(0, 7)) && created.key.endsWith(k.hint.slice(-4)))).toBe(true);
    // The listing never shows a key itself.
    expect(JSON.stringify(listed)).not.toContain(created.key);

    await run(process.execPath, [CLI, 'keys', 'revoke', created.key], { env });
    expectError(await api('GET', '/v1/domains'), 401);

    await stack.stop();
    const offline = JSON.parse((await run(process.execPath, [CLI, 'keys', 'create', '--plan', 'dev', '--json'], { env })).stdout);
    await stack.restart();
    expect((await http(stack.apiUrl, offline.key)('GET', '/v1/domains')).status).toBe(200);
  });

  it('rejects a bad plan with a usage error', async () => {
    await expect(run(process.execPath, [CLI, 'keys', 'create', '--plan', 'gold'], { env: { ...process.env, TEMPMAIL_DATA_DIR: stack.dataDir } })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--plan must be one of free, dev, startup, enterprise'),
    });
  });

  it('exits 2 with the usage when no command is given, and 0 with it for --help', async () => {
    await expect(run(process.execPath, [CLI], { env: process.env })).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage:') });
    expect((await run(process.execPath, [CLI, '--help'], { env: process.env })).stdout).toContain('usage:');
  });
});
