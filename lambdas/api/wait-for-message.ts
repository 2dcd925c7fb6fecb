import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { waitForMessage } from '../usecases/messages';

export const handler = apiHandler(CONTRACT.waitForMessage, async ({ params, query, caller, ctx }) => ({
  status: 200,
  json: await waitForMessage(ctx, caller, params.inbox_id, query),
}));
