import { apiHandler } from '../http/api-handler';
import { CONTRACT } from '../contract/contract';

export const handler = apiHandler(CONTRACT.listDomains, async ({ ctx }) => ({ status: 200, json: { domains: ctx.settings.domains } }));
