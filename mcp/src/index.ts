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
  const extractOnly = process.env.TEMPMAIL_MCP_EXTRACT_ONLY === '1' || process.argv.includes('--extract-only');
  await createServer(client, { extractOnly }).connect(new StdioServerTransport());
}

main().catch((error) => {
  process.stderr.write(`tempmail-mcp: ${(error as Error).message}\n`);
  process.exit(1);
});
