import { CONTRACT } from '../core/contract';
import { apiHandler } from '../http/api-handler';
import { openApiDocument } from '../core/openapi';

let document: unknown;

export const handler = apiHandler(CONTRACT.getOpenApi, async ({ ctx }) => ({
  status: 200,
  json: (document ??= openApiDocument(ctx.settings.domains)),
}));
