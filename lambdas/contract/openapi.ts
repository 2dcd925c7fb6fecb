/**
 * The OpenAPI 3.1 document, generated from the route table and the zod contract. It declares every status an
 * operation can answer and no other, with the headers that come with them, because clients and their generators
 * believe it: test/integration/openapi.test.ts validates live answers against it with a JSON Schema validator.
 */
// zod/mini, as in schemas.ts: the full zod would triple the bundle.
import * as z from 'zod/mini';
type ZodType<T = unknown> = z.ZodMiniType<T>;
import { CONTRACT, type RouteContract } from './contract';
import { MAX_BODY_BYTES } from '../core/limits';
import { allowedMethods, isApiRoute, ROUTES, STAGE_NAME, type Route } from './routes';
import { ErrorResponse } from './schemas';

type OperationName = keyof typeof CONTRACT;
type Tag = 'Inboxes' | 'Messages' | 'Webhooks' | 'Domains' | 'Document';

const TAGS: Record<Tag, string> = {
  Inboxes: 'Disposable inboxes: create one, read its state, delete it (or let it expire).',
  Messages: 'Mail received by an inbox over SMTP: list, wait for, read, download and delete.',
  Webhooks: 'Push of new mail and expired inboxes to your endpoint, signed as Standard Webhooks, retried for about a day.',
  Domains: 'The domains inboxes can be created on.',
  Document: 'This description of the API.',
};

/** What each operation is for, beyond its one-line summary in the route table. */
/** The viewer's page and files are not API operations (routes.ts isApiRoute): the document leaves them out. */
const OPERATIONS: Record<Exclude<OperationName, 'getViewer' | 'getViewerAsset'>, { tag: Tag; description: string }> = {
  listInboxes: {
    tag: 'Inboxes',
    description:
      "The caller's inboxes, newest first, a page of `limit` at a time (`next_cursor` while more remain). An expired inbox is " +
      'listed with `status: "expired"` until it is removed, an hour after expiry. With `group`, only the inboxes created in it.',
  },
  createWebhook: {
    tag: 'Webhooks',
    description:
      'Registers an endpoint for `message.received` (and/or `inbox.expired`) events of one inbox (`inbox_id`) or of every inbox ' +
      'of the account. The answer holds the signing secret (`whsec_…`), shown only here. Deliveries carry `webhook-id`, ' +
      '`webhook-timestamp` and `webhook-signature` (Standard Webhooks). 403 past the plan\'s webhook limit; 400 for a URL the ' +
      'delivery rules refuse (on AWS: https only, no private, loopback or link-local address).',
  },
  listWebhooks: { tag: 'Webhooks', description: "The account's webhooks, newest first, paged like messages. Secrets are never shown again." },
  getWebhook: { tag: 'Webhooks', description: 'One webhook; a disabled one (410 Gone, or a whole retry schedule failed) says why and when.' },
  deleteWebhook: { tag: 'Webhooks', description: 'Deletes the webhook; pending deliveries are dropped.' },
  testWebhook: { tag: 'Webhooks', description: 'Queues a `webhook.test` event to the endpoint now (202); its attempts show in the deliveries list.' },
  listWebhookDeliveries: {
    tag: 'Webhooks',
    description: 'Recent delivery attempts, newest first: event id and type, attempt, time, response status or error, duration, next retry.',
  },
  createInbox: {
    tag: 'Inboxes',
    description:
      'Creates an inbox and answers 201 with its address. Every field is optional: the first configured domain, a random ' +
      'username and a ttl of 3600 s are the defaults. An address belongs to one live inbox at a time (409 otherwise) and is ' +
      'free again once its inbox is deleted or expired. Mail to `name+tag@domain` lands in `name@domain`. With `group` (a CI ' +
      'run id, a worker id) the inbox is listed and deleted with its group; with `group` and `test_name` (instead of ' +
      '`username`) the username is derived from both, the same on every run.',
  },
  deleteInboxes: {
    tag: 'Inboxes',
    description:
      "Deletes every inbox of the group (`group`, required), live or expired, with their messages and attachments, each as " +
      'DELETE /v1/inboxes/{inbox_id} does. One request spends about 20 s at most: 200 `{"deleted_count": n, "finished": true}` ' +
      'once the group holds no inbox; 202 with `finished: false` when the time ran out first, and repeating it goes on. An ' +
      'unknown group is 200 with `deleted_count: 0`.',
  },
  getInbox: {
    tag: 'Inboxes',
    description: "The inbox's address, lifetime and message count. Another account's inbox is 404, never 403; an expired one is 404 `inbox expired: <id>`.",
  },
  deleteInbox: {
    tag: 'Inboxes',
    description:
      'Deletes the inbox, its messages and their attachments. The inbox is gone for its owner and its address free at once; ' +
      'a very large inbox may need more than one request to empty (each spends about 20 s): a repeated delete goes on ' +
      '(200) until it is finished, then answers 404. Whatever a delete leaves is removed anyway (sweep locally, TTL on AWS).',
  },
  emptyInbox: {
    tag: 'Messages',
    description:
      'Deletes every message of the inbox with its attachments and keeps the inbox (its address, lifetime and webhooks): ' +
      '`{"deleted_count": n, "finished": true}` with 200 once no message is left. A very large inbox may need more than one ' +
      'request (each spends about 20 s): a request that runs out of time answers 202 with `finished: false`, and repeating ' +
      'it goes on. Mail that arrives meanwhile may be deleted too.',
  },
  listMessages: {
    tag: 'Messages',
    description:
      'Message summaries, newest first, a page of `limit` at a time; `next_cursor` is present while more remain and is passed ' +
      "back as `cursor`. `total` is the inbox's whole count.",
  },
  waitForMessages: {
    tag: 'Messages',
    description:
      'Long-polls like the GET form, with conditions a test author states: each `{field, op, value}` (`contains`, `equals` or an ' +
      'RE2 `regex`), combined with `match` all or any. 200 `{"messages": [...]}` once `count` messages match (the oldest, in ' +
      'full); `exact` makes more than `count` a 409. `none: true` is the negative form: 204 when nothing matched for the whole ' +
      '`timeout`, 409 naming the message as soon as one does. A timeout is 408 in the error format with `near_misses`: the ' +
      'latest messages that did not match, each with the conditions it failed and the value it held. A bad pattern is 400.',
  },
  waitForMessage: {
    tag: 'Messages',
    description:
      'Long-polls: answers as soon as a message matching `after`, `from` and `subject` is in the inbox, or after `timeout` ' +
      'seconds with `{"message": null, "timed_out": true}`. Without `after` every message in the inbox qualifies, so the ' +
      'answer is the oldest matching message already there, or else the first to arrive. To wait for the next message, pass ' +
      'the id of the last one you have seen as `after`. The inbox is checked every 250 ms.',
  },
  getMessage: {
    tag: 'Messages',
    description:
      'One message: text and HTML bodies, attachments with download links valid for 15 minutes (none for a message that failed ' +
      'the virus scan: `download_url` null), the verification codes and links found in it, and the SPF, DKIM, DMARC, spam ' +
      'and virus verdicts.',
  },
  getMessageSnapshot: {
    tag: 'Messages',
    description:
      'The subject, text and HTML of a message normalised for snapshot tests: verification codes, dates and times, message ids, ' +
      "the inbox's own address, signed or token-bearing URL parts and MIME boundaries become placeholders (`<CODE-1>`, " +
      '`<DATE-1>`, `<TOKEN-1>`, …, numbered by first appearance, one value one placeholder in every field); tracking ' +
      'parameters (`utm_*`, `fbclid`, …) are dropped. Compare it with a stored snapshot (jest `toMatchSnapshot`).',
  },
  deleteMessage: { tag: 'Messages', description: "Deletes one message and its attachments; the inbox's count drops by one." },
  getRawMessage: {
    tag: 'Messages',
    description: 'The message exactly as it was received over SMTP (`message/rfc822`). 403 for a message that failed the virus scan (`auth.virus` FAIL).',
  },
  getMessageChecks: {
    tag: 'Messages',
    description:
      'Checks the message on demand: each section (sender, authentication, html, accessibility, links) lists findings (`pass`, `warn`, `fail`, or an ' +
      'RFC 8601 result such as `temperror`) and says `complete`, `partial` or `skipped` with a reason. A part that cannot ' +
      'finish (DNS unreachable, the time budget spent, the raw mail gone, HTML past its bounds) answers 200 with what it ' +
      'found. The links section makes requests to the URLs in the mail, so it runs only with `links=true`. docs/API.md ' +
      'describes each check and where its data comes from.',
  },
  listDomains: { tag: 'Domains', description: 'The domains inboxes can be created on; the first is the default of POST /v1/inboxes.' },
  getOpenApi: { tag: 'Document', description: 'This OpenAPI 3.1 document. Needs no key.' },
};

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
const requestIdHeader = (required: boolean) => ({ 'X-Request-Id': { $ref: `#/components/headers/${required ? 'RequestId' : 'GatewayRequestId'}` } });
const retryAfterHeader = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };

/** The error statuses an operation answers, each with when: derived from what the route and its contract can reject. */
function errorResponses(route: Route, contract: RouteContract): Record<string, unknown> {
  const error = (description: string, headers: Record<string, unknown> = {}) => ({
    description,
    headers: { ...requestIdHeader(false), ...headers },
    content: errorContent,
  });
  const out: Record<string, unknown> = {};
  if (contract.query || contract.body) {
    out['400'] = error(`an unknown or invalid query parameter${contract.body ? ', or an invalid body: not a JSON object, an unknown field, a value breaking its rule' : ''}`);
  }
  if (route.auth) {
    out['401'] = error('the X-API-Key header is missing or names no valid key');
    const more =
      {
        createInbox: ", or ttl exceeds the plan's maximum",
        createWebhook: ", or the plan's webhook limit is reached",
        getRawMessage: ', or the message failed the virus scan (auth.virus FAIL): its raw form is not served',
      }[route.name as string] ?? '';
    out['403'] = error(`the key's plan has no API access (free)${more}`);
  }
  if (contract.params) {
    out['404'] = error(
      route.path.startsWith('/v1/webhooks')
        ? 'the webhook does not exist or belongs to another account'
        : 'the inbox or message does not exist, belongs to another account, or the inbox expired (`inbox expired: <id>`)',
    );
  }
  out['405'] = error(`another method on this path; \`Allow\` lists those it supports (${allowedMethods(route.path).join(', ')})`, {
    Allow: { $ref: '#/components/headers/Allow' },
  });
  if (route.name === 'createInbox') out['409'] = error("the address is held by a live inbox (of any account), or the account holds its plan's max_inboxes live inboxes");
  out['413'] = error(
    `a request body over ${MAX_BODY_BYTES} bytes` +
      (route.name === 'createInbox' ? '' : ' (the local stack checks every route; on AWS, API Gateway refuses bodies over 10 MB and only POST /v1/inboxes reads one)'),
  );
  if (route.auth) out['429'] = error("the key's rate limit is exceeded: retry after `Retry-After` seconds", retryAfterHeader);
  out['500'] = error('a fault on the service side; the message names a request id');
  if (route.auth) out['503'] = error('a dependency (DynamoDB, S3) is unavailable, or the request ran out of time: retry after `Retry-After` seconds', retryAfterHeader);
  if (route.auth && route.method !== 'GET' && route.method !== 'DELETE') {
    out['507'] = error("(local stack) the data folder's filesystem is below its free-space headroom (TEMPMAIL_MIN_FREE_MB): writes other than deletes are refused until space is freed");
  }
  return out;
}

function successContent(route: Route, contract: RouteContract) {
  if (contract.response === 'redirect') return undefined;
  if (contract.response !== 'binary') {
    return { 'application/json': { schema: { $ref: `#/components/schemas/${z.globalRegistry.get(contract.response)?.id}` } } };
  }
  return { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'], description: 'this document' } } };
}

type JsonSchema = Record<string, unknown>;

/** zod's JSON Schema, cleaned: integers without the ±2^53 bounds zod adds, query integers without their string pattern. */
function toJsonSchema(schema: ZodType | typeof z.globalRegistry, io: 'input' | 'output', uri?: (id: string) => string): JsonSchema {
  return z.toJSONSchema(schema as ZodType, {
    io,
    unrepresentable: 'any',
    ...(uri ? { uri } : {}),
    override: ({ jsonSchema }) => {
      const json = jsonSchema as JsonSchema;
      if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
      if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
      if (json.type === 'integer') delete json.pattern;
    },
  }) as JsonSchema;
}

function parameters(schema: ZodType | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const json = toJsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    ...(description ? { description } : {}),
    schema: property,
  }));
}

export function openApiDocument(domains: string[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES.filter(isApiRoute)) {
    const name = route.name as keyof typeof OPERATIONS;
    const contract: RouteContract = CONTRACT[name];
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: route.name,
      summary: route.summary,
      description: OPERATIONS[name].description,
      tags: [OPERATIONS[name].tag],
      security: route.auth ? [{ apiKey: [] }] : [],
      parameters: [...parameters(contract.params, 'path'), ...parameters(contract.query, 'query')],
      ...(contract.body
        ? { requestBody: { required: false, content: { 'application/json': { schema: { $ref: `#/components/schemas/${z.globalRegistry.get(contract.body)?.id}` } } } } }
        : {}),
      responses: {
        [String(contract.status)]:
          contract.response === 'redirect'
            ? { description: 'a redirect to a download link of the content (a pre-signed URL, valid for minutes)', headers: { ...requestIdHeader(true), Location: { required: true, schema: { type: 'string', format: 'uri' } } } }
            : { description: 'success', headers: requestIdHeader(true), content: successContent(route, contract) },
        ...Object.fromEntries(
          Object.entries(contract.otherResponses ?? {}).map(([status, other]) => [
            status,
            {
              description: other.description,
              headers: requestIdHeader(true),
              ...(other.schema ? { content: { 'application/json': { schema: { $ref: `#/components/schemas/${z.globalRegistry.get(other.schema)?.id}` } } } } : {}),
            },
          ]),
        ),
        ...(contract.unfinishedStatus
          ? { [String(contract.unfinishedStatus)]: { description: 'not finished within the request\'s time: repeat the request to go on', headers: requestIdHeader(true), content: successContent(route, contract) } }
          : {}),
        ...errorResponses(route, contract),
      },
    };
  }
  void ErrorResponse; // registered through its .meta id
  const { schemas } = toJsonSchema(z.globalRegistry, 'output', (id) => `#/components/schemas/${id}`) as { schemas: Record<string, JsonSchema> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  // The domains are settings, not code: the request schema learns them here.
  const domain = (schemas.CreateInboxRequest.properties as Record<string, JsonSchema>).domain;
  domain.enum = domains;
  return {
    openapi: '3.1.0',
    info: {
      title: 'TempMail API',
      version: '1.0.0',
      description:
        'Disposable e-mail inboxes for automated tests, CI pipelines and AI agents: create an inbox, send mail to it over ' +
        `SMTP, read or wait for the messages, delete it or let it expire. Domains: ${domains.join(', ')}. Every error is ` +
        '`{"error": {"code", "message"}}` with `code` equal to the HTTP status. Send the key in `X-API-Key`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: 'http://127.0.0.1:3000', description: 'the local stack (`npm start`; PORT sets the port)' },
      {
        url: `https://{apiId}.execute-api.{region}.amazonaws.com/${STAGE_NAME}`,
        description: 'a deployed stack: the ApiUrl output of `cdk deploy`, without its trailing /v1',
        variables: { apiId: { default: 'your-api-id' }, region: { default: 'us-east-1' } },
      },
    ],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      headers: {
        RequestId: { description: 'identifies the request in the service logs', required: true, schema: { type: 'string' } },
        GatewayRequestId: {
          description:
            'identifies the request in the service logs. Always sent by the local stack; on AWS, answers API Gateway produces itself (401, 403 for a plan without access, 405, 429) carry x-amzn-RequestId instead',
          schema: { type: 'string' },
        },
        RetryAfter: { description: 'seconds to wait before retrying', required: true, schema: { type: 'integer', minimum: 1 } },
        Allow: { description: 'the methods this path supports, comma-separated', required: true, schema: { type: 'string' } },
      },
      schemas,
    },
    paths,
  };
}
