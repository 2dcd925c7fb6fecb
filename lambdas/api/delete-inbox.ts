import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { deleteInbox } from '../usecases/inboxes';

export const handler = apiHandler(CONTRACT.deleteInbox, async ({ params, caller, ctx }) => {
  await deleteInbox(ctx, caller, params.inbox_id);
  return { status: 200, json: { deleted: true as const } };
});
