import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { waitForMessages } from '../usecases/wait';

export const handler = apiHandler(CONTRACT.waitForMessages, async ({ params, body, caller, ctx }) => {
  const found = await waitForMessages(ctx, caller, params.inbox_id, body);
  return found ? { status: 200, json: found } : { status: 204, json: null };
});
