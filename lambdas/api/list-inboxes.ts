import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { listInboxes } from '../usecases/inboxes';

export const handler = apiHandler(CONTRACT.listInboxes, async ({ query, caller, ctx }) => ({
  status: 200,
  json: await listInboxes(ctx, caller, query),
}));
