import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { inboxCreatedView } from '../contract/views';
import { createInbox } from '../usecases/inboxes';

export const handler = apiHandler(CONTRACT.createInbox, async ({ body, caller, ctx }) => ({
  status: 201,
  json: inboxCreatedView(await createInbox(ctx, caller, body)),
}));
