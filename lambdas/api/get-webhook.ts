import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { getWebhook } from '../usecases/webhooks';

export const handler = apiHandler(CONTRACT.getWebhook, async ({ params, caller, ctx }) => ({
  status: 200,
  json: await getWebhook(ctx, caller, params.webhook_id),
}));
