import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';
import { getRawMessage } from '../usecases/messages';

export const handler = apiHandler(CONTRACT.getRawMessage, async ({ params, query, caller, ctx }) => {
  const link = await getRawMessage(ctx, caller, params.inbox_id, params.message_id);
  // as=url: for browsers, which would follow the redirect with the X-API-Key header to the link's host.
  if (query.as === 'url') return { status: 200, json: { download_url: link, expires_in: ctx.settings.downloadUrlSeconds } };
  return { status: CONTRACT.getRawMessage.status, redirect: link };
});
