import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { getRawMessage } from '../usecases/messages';

export const handler = apiHandler(CONTRACT.getRawMessage, async ({ params, caller, ctx }) => ({
  status: CONTRACT.getRawMessage.status,
  redirect: await getRawMessage(ctx, caller, params.inbox_id, params.message_id),
}));
