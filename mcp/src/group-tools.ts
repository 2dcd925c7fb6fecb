/**
 * The MCP tool of inbox groups (issue 24 item 4): delete a group's inboxes together. Creating in a group and listing
 * one are parameters of create_inbox and list_inboxes (server.ts). A thin call through the typed client's
 * deleteInboxes, which repeats the API's bounded delete until the group is empty.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { TempMailClient } from 'tempmail-client';
import { ok, tool } from './tool-kit';

export const groupName = () => z.string().describe('A group: 1-32 of a-z 0-9 . _ -, starting and ending with a letter or digit (any case; stored lower-case)');

export function registerGroupTools(server: McpServer, client: TempMailClient): void {
  server.registerTool(
    'delete_inboxes',
    {
      title: "Delete a group's inboxes",
      description: 'Deletes every inbox created in the group (create_inbox with group), with all their messages, immediately and permanently. An unknown group deletes nothing.',
      inputSchema: z.strictObject({ group: groupName() }),
      outputSchema: { deleted_count: z.number(), finished: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ group }) => tool(async () => {
      const result = await client.deleteInboxes(group);
      return ok(`Deleted ${result.deleted_count} inbox(es) of group ${group.toLowerCase()} and their messages.`, { ...result });
    }),
  );
}
