import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { listDeliveries } from '../usecases/webhooks';

export const handler = apiHandler(CONTRACT.listWebhookDeliveries, async ({ params, caller, ctx }) => ({
  status: 200,
  json: await listDeliveries(ctx, caller, params.webhook_id),
}));
