import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../core/contract';
import { rawDownload } from '../core/downloads';
import { getRawMessage } from '../usecases/messages';

/** The raw mail as data: a .eml download that is never cached (it is someone's mail). */
export const handler = apiHandler(CONTRACT.getRawMessage, async ({ params, caller, ctx }) => {
  const bytes = await getRawMessage(ctx, caller, params.inbox_id, params.message_id);
  const download = rawDownload(params.message_id);
  return {
    status: 200,
    bytes,
    contentType: download.contentType,
    headers: { 'Content-Disposition': download.contentDisposition, 'Cache-Control': 'no-store' },
  };
});
