import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { createWebhook } from '../usecases/webhooks';

export const handler = apiHandler(CONTRACT.createWebhook, async ({ body, caller, ctx }) => ({
  status: 201,
  json: await createWebhook(ctx, caller, body),
}));
