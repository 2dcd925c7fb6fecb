import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { deleteWebhook } from '../usecases/webhooks';

export const handler = apiHandler(CONTRACT.deleteWebhook, async ({ params, caller, ctx }) => {
  await deleteWebhook(ctx, caller, params.webhook_id);
  return { status: 200, json: { deleted: true as const } };
});
