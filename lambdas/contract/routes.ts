/**
 * The route table: the one place that states a route of the HTTP contract (method, path, whether it needs a key).
 * The CDK stack builds API Gateway resources from it and the local gateway dispatches with it; what deploys behind
 * each route (its handler module, IAM access and timeout) is in lambdas/layout/functions.ts, keyed by its name.
 */
interface RouteSpec {
  /** Function and operation name. */
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway resource path, with `{param}` segments. */
  path: string;
  /** False only for documents that need no key (the OpenAPI description). */
  auth: boolean;
  summary: string;
}

const TABLE = [
  { name: 'listInboxes', method: 'GET', path: '/v1/inboxes', auth: true, summary: "List the caller's inboxes, newest first" },
  { name: 'createInbox', method: 'POST', path: '/v1/inboxes', auth: true, summary: 'Create an inbox' },
  { name: 'deleteInboxes', method: 'DELETE', path: '/v1/inboxes', auth: true, summary: "Delete a group's inboxes and their messages" },
  { name: 'getInbox', method: 'GET', path: '/v1/inboxes/{inbox_id}', auth: true, summary: 'Get an inbox' },
  { name: 'deleteInbox', method: 'DELETE', path: '/v1/inboxes/{inbox_id}', auth: true, summary: 'Delete an inbox and all its messages' },
  { name: 'emptyInbox', method: 'DELETE', path: '/v1/inboxes/{inbox_id}/messages', auth: true, summary: 'Delete every message of an inbox and keep the inbox' },
  { name: 'listMessages', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages', auth: true, summary: 'List messages, newest first' },
  { name: 'waitForMessage', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages/wait', auth: true, summary: 'Wait for a message to arrive' },
  { name: 'waitForMessages', method: 'POST', path: '/v1/inboxes/{inbox_id}/messages/wait', auth: true, summary: 'Wait for messages matching conditions, or for none' },
  { name: 'getMessage', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages/{message_id}', auth: true, summary: 'Get a full message' },
  { name: 'deleteMessage', method: 'DELETE', path: '/v1/inboxes/{inbox_id}/messages/{message_id}', auth: true, summary: 'Delete one message' },
  { name: 'getMessageSnapshot', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages/{message_id}/snapshot', auth: true, summary: 'Get a message normalised for snapshot tests' },
  { name: 'getRawMessage', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages/{message_id}/raw', auth: true, summary: 'Get the original MIME message' },
  { name: 'getMessageChecks', method: 'GET', path: '/v1/inboxes/{inbox_id}/messages/{message_id}/checks', auth: true, summary: 'Check a message: sender, authentication, HTML, accessibility, links' },
  { name: 'listDomains', method: 'GET', path: '/v1/domains', auth: true, summary: 'List the domains inboxes can use' },
  { name: 'createWebhook', method: 'POST', path: '/v1/webhooks', auth: true, summary: 'Create a webhook (its signing secret is in this answer only)' },
  { name: 'listWebhooks', method: 'GET', path: '/v1/webhooks', auth: true, summary: "List the account's webhooks" },
  { name: 'getWebhook', method: 'GET', path: '/v1/webhooks/{webhook_id}', auth: true, summary: 'Get a webhook (disabled ones say why)' },
  { name: 'deleteWebhook', method: 'DELETE', path: '/v1/webhooks/{webhook_id}', auth: true, summary: 'Delete a webhook' },
  { name: 'testWebhook', method: 'POST', path: '/v1/webhooks/{webhook_id}/test', auth: true, summary: 'Send a webhook.test event now' },
  { name: 'listWebhookDeliveries', method: 'GET', path: '/v1/webhooks/{webhook_id}/deliveries', auth: true, summary: 'Recent delivery attempts, newest first' },
  { name: 'getOpenApi', method: 'GET', path: '/v1/openapi.json', auth: false, summary: 'This API as an OpenAPI 3.1 document' },
  // The web viewer (viewer/): its page and its bundled files, served on the API's own origin. Not API routes: the
  // OpenAPI document leaves out everything outside /v1.
  { name: 'getViewer', method: 'GET', path: '/', auth: false, summary: 'The web inbox viewer' },
  { name: 'getViewerAsset', method: 'GET', path: '/viewer/{asset}', auth: false, summary: "The viewer's bundled files" },
] as const satisfies readonly RouteSpec[];

export type RouteName = (typeof TABLE)[number]['name'];
export interface Route extends RouteSpec {
  name: RouteName;
}
export const ROUTES: readonly Route[] = TABLE;

/** Routes of the API proper (the viewer's files are served beside them). */
export const isApiRoute = (route: Pick<Route, 'path'>): boolean => route.path.startsWith('/v1/');

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
