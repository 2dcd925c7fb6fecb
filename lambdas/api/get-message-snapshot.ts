import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { getMessageSnapshot } from '../usecases/messages';

export const handler = apiHandler(CONTRACT.getMessageSnapshot, async ({ params, caller, ctx }) => ({
  status: 200,
  json: await getMessageSnapshot(ctx, caller, params.inbox_id, params.message_id),
}));
