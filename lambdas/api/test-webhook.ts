import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { testWebhook } from '../usecases/webhooks';

export const handler = apiHandler(CONTRACT.testWebhook, async ({ params, caller, ctx }) => ({
  status: 202,
  json: await testWebhook(ctx, caller, params.webhook_id),
}));
