/**
 * Webhook tools: list, create and delete the account's webhooks, thin calls through the typed client. A webhook's
 * fields are the account's own, not a sender's; each is still escaped and cut (Cuts) so that no field can start a
 * line of its own or fill an agent's context. A created webhook's signing secret is shown once, as the API does.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { TempMailClient, Webhook } from 'tempmail-client';
import { Cuts } from './fence';
import { ok, tool } from './tool-kit';

const EVENTS = ['message.received', 'inbox.expired'] as const;

const webhookShape = {
  id: z.string(),
  url: z.string(),
  inbox_id: z.string().nullable(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  disabled_reason: z.string().nullable(),
  disabled_at: z.string().nullable(),
  created_at: z.string(),
};

const webhookId = z.string().describe('The webhook id, e.g. wh_…, as returned by create_webhook or list_webhooks');

function shown(w: Webhook, cuts: Cuts) {
  return {
    ...w,
    url: cuts.field('url', w.url, 2_048),
    description: w.description === null ? null : cuts.field('description', w.description),
    disabled_reason: w.disabled_reason === null ? null : cuts.field('disabled reason', w.disabled_reason),
  };
}

const line = (w: ReturnType<typeof shown>) =>
  `${w.id}  ${w.status}${w.disabled_reason ? ` (${w.disabled_reason})` : ''}  ${w.url}  ${w.events.join(',')}  ${w.inbox_id ?? 'every inbox'}${w.description ? `  "${w.description}"` : ''}`;

export function registerWebhookTools(server: McpServer, client: TempMailClient): void {
  server.registerTool(
    'list_webhooks',
    {
      title: 'List webhooks',
      description: "Lists the account's webhooks: id, url, events, inbox (or every inbox), status (disabled ones say why). Use next_cursor as cursor for the next page.",
      inputSchema: z.strictObject({ limit: z.number().int().min(1).max(100).optional(), cursor: z.string().optional() }),
      outputSchema: { webhooks: z.array(z.object(webhookShape)), next_cursor: z.string().optional() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ limit, cursor }) => tool(async () => {
      const page = await client.listWebhooks({ limit, cursor });
      const cuts = new Cuts();
      const webhooks = page.webhooks.map((w) => shown(w, cuts));
      const text = [`${webhooks.length} webhook(s)${page.next_cursor ? ' (more: pass next_cursor)' : ''}.`, ...webhooks.map(line), cuts.note('')];
      return ok(text.filter(Boolean).join('\n'), { ...page, webhooks });
    }),
  );

  server.registerTool(
    'create_webhook',
    {
      title: 'Create a webhook',
      description:
        'Registers an https URL to receive signed POSTs (Standard Webhooks) when mail arrives (message.received) or an inbox expires (inbox.expired), ' +
        'for one inbox or, without inbox_id, every inbox of the account. Returns the webhook with its signing secret (whsec_…), shown only in this answer.',
      inputSchema: z.strictObject({
        url: z.string().describe('The endpoint: https, a public host (the local stack also accepts http to loopback)'),
        inbox_id: z.string().optional().describe('Only this inbox; default every inbox of the account'),
        events: z.array(z.enum(EVENTS)).min(1).optional().describe('Default both'),
        description: z.string().max(200).optional(),
      }),
      outputSchema: { ...webhookShape, secret: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) => tool(async () => {
      const created = await client.createWebhook(args);
      const webhook = { ...shown(created, new Cuts()), secret: created.secret };
      return ok(`Created webhook ${webhook.id} for ${webhook.url}. Its signing secret (shown only now): ${webhook.secret}`, webhook);
    }),
  );

  server.registerTool(
    'delete_webhook',
    {
      title: 'Delete a webhook',
      description: 'Deletes the webhook: no more deliveries. Deleting it again is an error (webhook not found).',
      inputSchema: z.strictObject({ webhook_id: webhookId }),
      outputSchema: { deleted: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    ({ webhook_id }) => tool(async () => {
      const result = await client.deleteWebhook(webhook_id);
      return ok(`Deleted webhook ${webhook_id}.`, { ...result });
    }),
  );
}
