/**
 * The MCP server as a user gets it: in a fresh tree holding what git holds of the root manifest, client/ and mcp/,
 * `npm ci -w mcp` (the npm ci of the root, limited to this workspace to spare installing the CDK) must leave a
 * working `npx tempmail-mcp` with no build step of anyone's: the workspaces' prepare scripts build client and
 * server on install. The server is then driven through the MCP SDK's client over stdio and answers tools/list.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { sharedStack } from '../support/shared';

const ROOT = path.resolve(__dirname, '../..');
const stack = sharedStack();
const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-fresh-'));

beforeAll(() => {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'package.json', 'package-lock.json', 'tsconfig.json', 'client', 'mcp'], { cwd: ROOT, encoding: 'utf8' });
  for (const file of tracked.split('\n').filter(Boolean)) {
    fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(tree, file));
    fs.chmodSync(path.join(tree, file), fs.statSync(path.join(ROOT, file)).mode);
  }
  execFileSync('npm', ['ci', '-w', 'mcp', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: tree, stdio: 'ignore', timeout: 170_000 });
}, 180_000);
afterAll(() => fs.rmSync(tree, { recursive: true, force: true }));

it('ships an executable bin', () => {
  const bin = JSON.parse(fs.readFileSync(path.join(tree, 'mcp', 'package.json'), 'utf8')).bin['tempmail-mcp'];
  expect(fs.statSync(path.join(tree, 'mcp', bin)).mode & 0o111).not.toBe(0);
  expect(fs.readFileSync(path.join(tree, 'mcp', bin), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
});

it('starts with `npx tempmail-mcp` and answers tools/list over stdio', async () => {
  const client = new Client({ name: 'tempmail-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['--no', 'tempmail-mcp'], // --no: only what the install put there, never a download
    cwd: tree,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TEMPMAIL_API_KEY: stack.keys.enterprise, TEMPMAIL_API_URL: stack.apiUrl },
    stderr: 'pipe',
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'check_message', 'create_inbox', 'create_webhook', 'delete_inbox', 'delete_inboxes', 'delete_message', 'delete_webhook', 'empty_inbox', 'expect_no_message', 'extract_verification', 'get_inbox', 'get_message',
      'get_message_snapshot', 'get_raw_message', 'list_domains', 'list_inboxes', 'list_messages', 'list_webhooks', 'wait_for_message', 'wait_for_messages',
    ]);
    const domains = (await client.callTool({ name: 'list_domains', arguments: {} })) as { structuredContent?: { domains: string[] } };
    expect(domains.structuredContent?.domains).toEqual(stack.domains);
  } finally {
    await client.close();
  }
}, 30_000);
