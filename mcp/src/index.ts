/**
 * `tempmail-mcp`: the TempMail MCP server on stdio. Configured by TEMPMAIL_API_KEY and TEMPMAIL_API_URL;
 * TEMPMAIL_MCP_EXTRACT_ONLY=1 (or --extract-only) offers no tool that shows a mail body (server.ts ServerOptions).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { TempMailClient } from 'tempmail-client';
import { createServer } from './server';

async function main(): Promise<void> {
  const apiKey = process.env.TEMPMAIL_API_KEY;
  if (!apiKey) {
    process.stderr.write(
      'tempmail-mcp: TEMPMAIL_API_KEY is not set. Set it to your TempMail API key (and TEMPMAIL_API_URL to the API base URL, default http://127.0.0.1:3000).\n',
    );
    process.exit(1);
  }
  const client = new TempMailClient({ apiKey, baseUrl: process.env.TEMPMAIL_API_URL || 'http://127.0.0.1:3000' });
  const extractOnly = extractOnlyFrom(process.env.TEMPMAIL_MCP_EXTRACT_ONLY, process.argv.slice(2));
  await createServer(client, { extractOnly }).connect(new StdioServerTransport());
}

/**
 * Extract-only mode restricts what an agent may read, so a setting the server does not understand stops it instead of
 * leaving every tool on: the variable is 0 or 1 (unset: 0), and --extract-only is the one argument.
 */
function extractOnlyFrom(variable: string | undefined, args: string[]): boolean {
  const unknown = args.filter((arg) => arg !== '--extract-only');
  if (unknown.length) throw new Error(`unknown argument ${JSON.stringify(unknown[0])}; the only argument is --extract-only`);
  if (variable !== undefined && variable !== '' && variable !== '0' && variable !== '1') {
    throw new Error(`TEMPMAIL_MCP_EXTRACT_ONLY is ${JSON.stringify(variable)}; it is 0 or 1`);
  }
  return variable === '1' || args.includes('--extract-only');
}

main().catch((error) => {
  process.stderr.write(`tempmail-mcp: ${(error as Error).message}\n`);
  process.exit(1);
});
