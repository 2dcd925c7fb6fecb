import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { deleteInboxGroup } from '../usecases/inboxes';

/** DELETE /v1/inboxes?group=: 200 once the group holds no inbox, 202 when the request's time ran out first (a repeat goes on). */
export const handler = apiHandler(CONTRACT.deleteInboxes, async ({ query, caller, ctx }) => {
  const result = await deleteInboxGroup(ctx, caller, query.group);
  return { status: result.finished ? CONTRACT.deleteInboxes.status : CONTRACT.deleteInboxes.unfinishedStatus, json: result };
});
