/** The OpenAPI 3.1 document, generated from the route table and the zod contract. */
// zod/mini, as in schemas.ts: the full zod would triple the bundle.
import * as z from 'zod/mini';
type ZodType<T = unknown> = z.ZodMiniType<T>;
import { CONTRACT, type RouteContract } from './contract';
import { isApiRoute, ROUTES } from './routes';
import { ErrorResponse } from './schemas';

const ERRORS: Record<string, string> = {
  '400': 'invalid parameters',
  '401': 'API key missing or invalid',
  '403': 'the plan does not allow the action',
  '404': 'the inbox or message does not exist (or belongs to another account, or expired)',
  '429': 'rate limit exceeded (see Retry-After)',
  '500': 'fault on the service side; the message names a request id',
};

const errorRef = { $ref: '#/components/schemas/Error' };

function parameters(schema: ZodType | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}

export function openApiDocument(domains: string[]) {
  const registry = z.globalRegistry;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES.filter(isApiRoute)) {
    const contract: RouteContract = CONTRACT[route.name as keyof typeof CONTRACT];
    const response =
      contract.response === 'binary'
        ? { content: { [route.name === 'getRawMessage' ? 'message/rfc822' : 'application/json']: { schema: {} } } }
        : { content: { 'application/json': { schema: { $ref: `#/components/schemas/${registry.get(contract.response)?.id}` } } } };
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: route.name,
      summary: route.summary,
      security: route.auth ? [{ apiKey: [] }] : [],
      parameters: [...parameters(contract.params, 'path'), ...parameters(contract.query, 'query')],
      ...(contract.body
        ? { requestBody: { required: false, content: { 'application/json': { schema: { $ref: `#/components/schemas/${registry.get(contract.body)?.id}` } } } } }
        : {}),
      responses: {
        [String(contract.status)]: { description: 'success', ...response },
        ...Object.fromEntries(Object.entries(ERRORS).map(([code, description]) => [code, { description, content: { 'application/json': { schema: errorRef } } }])),
      },
    };
  }
  const components = z.toJSONSchema(registry, { io: 'output', uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' }) as {
    schemas: Record<string, unknown>;
  };
  void ErrorResponse; // registered through its .meta id
  for (const schema of Object.values(components.schemas) as Record<string, unknown>[]) {
    delete schema.$schema;
    delete schema.$id;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'TempMail API', version: '1.0.0', description: `Disposable inboxes. Domains: ${domains.join(', ')}` },
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } }, schemas: components.schemas },
    paths,
  };
}
