/**
 * The route table: the one place that states a route. The CDK stack builds API Gateway resources, one function
 * per route and each function's IAM policy from it; the local gateway dispatches with it.
 */
/** The handlers that serve the viewer's page and files (their deployed bundles carry them, see lib/viewer.ts). */
export const VIEWER_HANDLERS: readonly string[] = ['api/get-viewer', 'api/get-viewer-asset'];

import { MAX_ROUTE_TIMEOUT_SECONDS } from './limits';

/**
 * What a function's code calls, one DynamoDB action each (lib/permissions.ts): a function is granted what its own
 * code path issues, nothing more. Transactions are authorised item by item (a Put in TransactWriteItems needs
 * PutItem), and no code issues ConditionCheck or BatchGetItem, so neither is an access. `accounts:query` is the
 * account index, which only GET /v1/inboxes and POST /v1/inboxes (counting the live inboxes) query. `bucket:*` act
 * on inboxes' objects (`inboxes/`), `inbound:*` on the raw mail SES drops (`inbound/`), which only ingest may touch.
 */
export type Access =
  /** GetItem */
  | 'table:get'
  /** Query on the table (an inbox's messages, an account's webhooks, a webhook's deliveries) */
  | 'table:query'
  /** PutItem, alone or in a transaction */
  | 'table:put'
  /** UpdateItem, alone or in a transaction */
  | 'table:update'
  /** DeleteItem, alone or in a transaction */
  | 'table:delete'
  /** BatchWriteItem (deletes of an inbox's messages, 25 at a time) */
  | 'table:batch-write'
  /** Query on the account index (inboxes_by_account) */
  | 'accounts:query'
  /** ListBucket under inboxes/ only, without reading objects (deleting a prefix lists it) */
  | 'bucket:list'
  | 'bucket:read'
  | 'bucket:write'
  | 'bucket:delete'
  | 'inbound:read'
  | 'inbound:delete'
  /** Seal webhook signing secrets (KMS Encrypt on AWS; never Decrypt). */
  | 'secrets:seal'
  /** Open them (KMS Decrypt): the sender only. */
  | 'secrets:open'
  /** Queue webhook deliveries (SQS SendMessage on the delivery queue). */
  | 'deliveries:send'
  /** The dead-letter queue of deliveries (SQS SendMessage on it): the sender, for jobs past the schedule. */
  | 'deliveries:dead-letter';

export interface Route {
  /** Function and operation name. */
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway resource path, with `{param}` segments. */
  path: string;
  /** Handler module under lambdas/, exporting `handler`. */
  handler: string;
  /** False only for documents that need no key (the OpenAPI description). */
  auth: boolean;
  /** What the function may do to the table and the bucket: its IAM policy, nothing more. */
  access: Access[];
  summary: string;
  /** Lambda timeout, at most MAX_ROUTE_TIMEOUT_SECONDS; the wait endpoint holds requests up to 25 s. */
  timeoutSeconds?: number;
  /** Holds its function for seconds while it waits: its concurrency is capped (TempMailService's concurrency). */
  longPoll?: true;
}

export const ROUTES: readonly Route[] = [
  { name: 'listInboxes', method: 'GET', path: '/v1/inboxes', handler: 'api/list-inboxes', auth: true, access: ['accounts:query'], summary: "List the caller's inboxes, newest first" },
  { name: 'createInbox', method: 'POST', path: '/v1/inboxes', handler: 'api/create-inbox', auth: true, access: ['accounts:query', 'table:put'], summary: 'Create an inbox' },
  { name: 'getInbox', method: 'GET', path: '/v1/inboxes/{inbox_id}', handler: 'api/get-inbox', auth: true, access: ['table:get'], summary: 'Get an inbox' },
  { name: 'deleteInbox', method: 'DELETE', path: '/v1/inboxes/{inbox_id}', handler: 'api/delete-inbox', auth: true, access: ['table:get', 'table:update', 'table:query', 'table:batch-write', 'table:delete', 'bucket:list', 'bucket:delete'], summary: 'Delete an inbox and all its messages', timeoutSeconds: MAX_ROUTE_TIMEOUT_SECONDS },
  { name: 'listMessages', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages', handler: 'api/list-messages', auth: true, access: ['table:get', 'table:query'], summary: 'List messages, newest first' },
  { name: 'waitForMessage', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages/wait', handler: 'api/wait-for-message', auth: true, access: ['table:get', 'table:query', 'bucket:read'], summary: 'Wait for a message to arrive', timeoutSeconds: MAX_ROUTE_TIMEOUT_SECONDS, longPoll: true },
  { name: 'getMessage', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages/{message_id}', handler: 'api/get-message', auth: true, access: ['table:get', 'bucket:read'], summary: 'Get a full message' },
  { name: 'deleteMessage', method: 'DELETE', path: '/v1/inboxes/{inbox_id}/messages/{message_id}', handler: 'api/delete-message', auth: true, access: ['table:get', 'table:update', 'table:delete', 'bucket:list', 'bucket:delete'], summary: 'Delete one message' },
  { name: 'getRawMessage', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages/{message_id}/raw', handler: 'api/get-raw-message', auth: true, access: ['table:get', 'bucket:read'], summary: 'Get the original MIME message' },
  { name: 'listDomains', method: 'GET', path: '/v1/domains', handler: 'api/list-domains', auth: true, access: [], summary: 'List the domains inboxes can use' },
  { name: 'createWebhook', method: 'POST', path: '/v1/webhooks', handler: 'api/create-webhook', auth: true, access: ['table:get', 'table:put', 'table:update', 'secrets:seal'], summary: 'Create a webhook (its signing secret is in this answer only)' },
  { name: 'listWebhooks', method: 'GET', path: '/v1/webhooks', handler: 'api/list-webhooks', auth: true, access: ['table:query'], summary: "List the account's webhooks" },
  { name: 'getWebhook', method: 'GET', path: '/v1/webhooks/{webhook_id}', handler: 'api/get-webhook', auth: true, access: ['table:get'], summary: 'Get a webhook (disabled ones say why)' },
  { name: 'deleteWebhook', method: 'DELETE', path: '/v1/webhooks/{webhook_id}', handler: 'api/delete-webhook', auth: true, access: ['table:get', 'table:update', 'table:delete'], summary: 'Delete a webhook' },
  { name: 'testWebhook', method: 'POST', path: '/v1/webhooks/{webhook_id}/test', handler: 'api/test-webhook', auth: true, access: ['table:get', 'deliveries:send'], summary: 'Send a webhook.test event now' },
  { name: 'listWebhookDeliveries', method: 'GET', path: '/v1/webhooks/{webhook_id}/deliveries', handler: 'api/list-webhook-deliveries', auth: true, access: ['table:get', 'table:query'], summary: 'Recent delivery attempts, newest first' },
  { name: 'getOpenApi', method: 'GET', path: '/v1/openapi.json', handler: 'api/get-openapi', auth: false, access: [], summary: 'This API as an OpenAPI 3.1 document' },
  // The web viewer (viewer/): its page and its bundled files, served on the API's own origin. Not API routes: the
  // OpenAPI document leaves out everything outside /v1.
  { name: 'getViewer', method: 'GET', path: '/', handler: 'api/get-viewer', auth: false, access: [], summary: 'The web inbox viewer' },
  { name: 'getViewerAsset', method: 'GET', path: '/viewer/{asset}', handler: 'api/get-viewer-asset', auth: false, access: [], summary: "The viewer's bundled files" },
];

/** Routes of the API proper (the viewer's files are served beside them). */
export const isApiRoute = (route: Pick<Route, 'path'>): boolean => route.path.startsWith('/v1/');

/** The SES ingest function is not a route, but its access is stated here beside theirs. */
export const INGEST_HANDLER = 'ingest/handler';
export const INGEST_ACCESS: readonly Access[] = ['table:get', 'table:query', 'table:put', 'table:update', 'inbound:read', 'inbound:delete', 'bucket:read', 'bucket:write', 'bucket:delete'];
/**
 * Webhook delivery, not routes either: the dispatcher turns stored messages and expired inboxes (the table's
 * stream on AWS) into deliveries; the sender makes each attempt and queues the retry.
 */
export const WEBHOOK_DISPATCHER_HANDLER = 'webhooks/dispatcher';
export const WEBHOOK_DISPATCHER_ACCESS: readonly Access[] = ['table:get', 'table:query', 'deliveries:send'];
export const WEBHOOK_SENDER_HANDLER = 'webhooks/sender';
export const WEBHOOK_SENDER_ACCESS: readonly Access[] = ['table:get', 'table:put', 'table:update', 'secrets:open', 'deliveries:send', 'deliveries:dead-letter'];
/**
 * Deletes a removed inbox's objects (the table's stream on AWS: DynamoDB's TTL deletes items, never objects). It lists
 * and deletes under `inboxes/` only.
 */
export const INBOX_CLEANUP_HANDLER = 'cleanup/inbox-objects';
export const INBOX_CLEANUP_ACCESS: readonly Access[] = ['bucket:list', 'bucket:delete'];
export const AUTHORIZER_HANDLER = 'api/authorizer';
/** The authorizer reads one key record by its hash. */
export const AUTHORIZER_ACCESS: readonly Access[] = ['table:get'];

/** Every verb a client could try; those the route table does not define on a path answer 405 with `Allow`. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** The methods the route table defines on a path: the `Allow` of its 405 answers. */
export const allowedMethods = (path: string): string[] => ROUTES.filter((r) => r.path === path).map((r) => r.method);

/** The API Gateway stage the CDK app deploys: a deployed base URL ends with it. */
export const STAGE_NAME = 'prod';

export type RouteMatch =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

const compiled = ROUTES.map((route) => {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, names, regex: new RegExp(`^${source}/?$`) };
});

/** Matches like API Gateway: literal segments win over `{param}` ones (`messages/wait` before `messages/{id}`). */
export function matchRoute(method: string, path: string): RouteMatch {
  const hits = compiled
    .map((c) => ({ c, m: c.regex.exec(path) }))
    .filter((h): h is { c: (typeof compiled)[number]; m: RegExpExecArray } => h.m !== null)
    .sort((a, b) => a.c.names.length - b.c.names.length);
  if (hits.length === 0) return { kind: 'not-found' };
  const fewest = hits[0].c.names.length;
  const best = hits.filter((h) => h.c.names.length === fewest);
  const hit = best.find((h) => h.c.route.method === method.toUpperCase());
  if (!hit) return { kind: 'method-not-allowed', allowed: best.map((h) => h.c.route.method) };
  const params: Record<string, string> = {};
  hit.c.names.forEach((name, i) => {
    params[name] = safeDecode(hit.m[i + 1]);
  });
  return { kind: 'route', route: hit.c.route, params };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
