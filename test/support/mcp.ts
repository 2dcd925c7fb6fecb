/**
 * Driving the MCP server as it ships (mcp/dist, built with esbuild) over stdio with the MCP SDK's own client, against
 * the shared local stack: what test/e2e/mcp*.test.ts share.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { sharedStack } from './shared';
import type { Json } from './json';

const stack = sharedStack();
const MCP_DIR = path.resolve(__dirname, '../../mcp');
export const SERVER = path.join(MCP_DIR, 'dist', 'index.js');

/** Builds mcp/dist as it ships (a beforeAll of each file that starts it). */
export function buildMcp(): void {
  execFileSync('npm', ['run', 'build', '-w', 'mcp'], { cwd: path.resolve(__dirname, '../..'), stdio: 'ignore' });
}

/** `env`: more of the server's environment (TEMPMAIL_MCP_EXTRACT_ONLY). */
export async function connect(apiKey: string, env: Record<string, string> = {}) {
  const client = new Client({ name: 'tempmail-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { PATH: process.env.PATH ?? '', TEMPMAIL_API_KEY: apiKey, TEMPMAIL_API_URL: stack.apiUrl, ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

/**
 * The one fence in a tool's text: its marker, and the text before, inside and after it. Fails unless exactly one
 * opening and one closing line carry the marker.
 */
export function fenceOf(text: string) {
  const open = /^<<<UNTRUSTED MESSAGE CONTENT (\S+)$/m.exec(text);
  if (!open) throw new Error(`no fence in: ${text.slice(0, 500)}`);
  const marker = open[1];
  const close = `\nUNTRUSTED MESSAGE CONTENT ${marker}>>>`;
  const end = text.indexOf(close);
  expect(end).toBeGreaterThan(open.index);
  expect(text.split(`<<<UNTRUSTED MESSAGE CONTENT ${marker}`)).toHaveLength(2);
  expect(text.split(close)).toHaveLength(2);
  return { marker, before: text.slice(0, open.index), inside: text.slice(open.index + open[0].length, end), after: text.slice(end + close.length) };
}

export type ToolResult = { isError?: boolean; structuredContent?: Json; content: { type: string; text: string }[] };
export const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolResult;

