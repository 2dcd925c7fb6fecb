import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { emptyInbox } from '../usecases/messages';

/** 200 once the inbox holds no message, 202 when the request's time ran out first (a repeat goes on). */
export const handler = apiHandler(CONTRACT.emptyInbox, async ({ params, caller, ctx }) => {
  const result = await emptyInbox(ctx, caller, params.inbox_id);
  return { status: result.finished ? CONTRACT.emptyInbox.status : CONTRACT.emptyInbox.unfinishedStatus, json: result };
});
