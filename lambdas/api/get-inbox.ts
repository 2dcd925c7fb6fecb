import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { inboxView } from '../contract/views';
import { ownedInbox } from '../usecases/inboxes';

export const handler = apiHandler(CONTRACT.getInbox, async ({ params, caller, ctx }) => ({
  status: 200,
  json: inboxView(await ownedInbox(ctx, caller, params.inbox_id), ctx.now()),
}));
