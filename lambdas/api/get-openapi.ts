import { CONTRACT } from '../contract/contract';
import { apiHandler } from '../http/api-handler';
import { openApiDocument } from '../contract/openapi';

let document: unknown;

export const handler = apiHandler(CONTRACT.getOpenApi, async ({ ctx }) => ({
  status: 200,
  json: (document ??= openApiDocument(ctx.settings.domains)),
}));
