import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { currentChecksContext } from '../app/checks';
import { messageChecks } from '../usecases/checks';

export const handler = apiHandler(CONTRACT.getMessageChecks, async ({ params, query, caller }) => ({
  status: 200,
  json: await messageChecks(currentChecksContext(), caller, params.inbox_id, params.message_id, { links: query.links === 'true' }),
}));
