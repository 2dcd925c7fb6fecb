import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { deleteMessage } from '../usecases/messages';

export const handler = apiHandler(CONTRACT.deleteMessage, async ({ params, caller, ctx }) => {
  await deleteMessage(ctx, caller, params.inbox_id, params.message_id);
  return { status: 200, json: { deleted: true as const } };
});
