import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { listMessages } from '../usecases/messages';

export const handler = apiHandler(CONTRACT.listMessages, async ({ params, query, caller, ctx }) => ({
  status: 200,
  json: await listMessages(ctx, caller, params.inbox_id, query),
}));
