import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { getMessage } from '../usecases/messages';

export const handler = apiHandler(CONTRACT.getMessage, async ({ params, caller, ctx }) => ({
  status: 200,
  json: await getMessage(ctx, caller, params.inbox_id, params.message_id),
}));
