import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { listWebhooks } from '../usecases/webhooks';

export const handler = apiHandler(CONTRACT.listWebhooks, async ({ query, caller, ctx }) => ({
  status: 200,
  json: await listWebhooks(ctx, caller, query),
}));
