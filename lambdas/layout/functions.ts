/**
 * Deploy facts, stated once beside the route table (lambdas/contract/routes.ts) and keyed by its names: which handler
 * module each function runs, what its code may call (its IAM policy, lib/permissions.ts) and its timeout. The CDK
 * stack (lib/), the bundler (scripts/bundle-lambdas.ts) and the local gateway read them; the HTTP contract does not.
 */
import type { StoreKind } from '../config/app-config';
import { MAX_ROUTE_TIMEOUT_SECONDS } from '../core/limits';
import { ROUTES, type Route, type RouteName } from '../contract/routes';

/**
 * The store every deployed function runs on, set as TEMPMAIL_STORE in its environment (lib/functions.ts): stated, not
 * left to the readers' default (DEFAULT_STORE_KIND, the embedded store of `npm start`).
 */
export const DEPLOYED_STORE: StoreKind = 'dynamodb';

/**
 * What a function's code calls, one DynamoDB action each (lib/permissions.ts): a function is granted what its own
 * code path issues, nothing more. Transactions are authorised item by item (a Put in TransactWriteItems needs
 * PutItem), and no code issues ConditionCheck, so it is no access. `accounts:query` is the
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
  /** BatchGetItem (the groups of a page of the account's inboxes, which the account index does not project) */
  | 'table:batch-get'
  /** Query on the account index (inboxes_by_account) */
  | 'accounts:query'
  /** Query on the group index (inboxes_by_group): GET and DELETE /v1/inboxes?group= */
  | 'groups:query'
  /** ListBucket under inboxes/ only, without reading objects (deleting a prefix lists it) */
  | 'bucket:list'
  | 'bucket:read'
  | 'bucket:write'
  | 'bucket:delete'
  /** PutObject of a message's checks cache only (blobKeys.checks), never its other objects: the checks function. */
  | 'checks:cache'
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

/** What deploys behind one route. */
export interface RouteFunction {
  /** Handler module under lambdas/, exporting `handler`. */
  handler: string;
  /** What the function may do to the table and the bucket: its IAM policy, nothing more. */
  access: readonly Access[];
  /** Lambda timeout, at most MAX_ROUTE_TIMEOUT_SECONDS; the wait endpoint holds requests up to 25 s. */
  timeoutSeconds?: number;
  /** Holds its function for seconds while it waits: its concurrency is capped (TempMailService's concurrency). */
  longPoll?: true;
  /** Runs RE2 (core/wait-conditions.ts): its bundle carries re2-wasm's WebAssembly file beside it (lib/re2-asset.ts). */
  re2?: true;
}

export const ROUTE_FUNCTIONS: Readonly<Record<RouteName, RouteFunction>> = {
  listInboxes: { handler: 'api/list-inboxes', access: ['accounts:query', 'groups:query', 'table:batch-get'] },
  createInbox: { handler: 'api/create-inbox', access: ['accounts:query', 'table:put'] },
  // A group's inboxes (its index), each read and deleted as deleteInbox does, for at most its budget.
  deleteInboxes: { handler: 'api/delete-inboxes', access: ['groups:query', 'table:get', 'table:update', 'table:query', 'table:batch-write', 'table:delete', 'bucket:list', 'bucket:delete'], timeoutSeconds: MAX_ROUTE_TIMEOUT_SECONDS },
  getInbox: { handler: 'api/get-inbox', access: ['table:get'] },
  deleteInbox: { handler: 'api/delete-inbox', access: ['table:get', 'table:update', 'table:query', 'table:batch-write', 'table:delete', 'bucket:list', 'bucket:delete'], timeoutSeconds: MAX_ROUTE_TIMEOUT_SECONDS },
  // Lists a batch of the inbox's messages, then deletes each with its count (a transaction) and its objects (list +
  // delete), as deleteMessage does; for at most its budget, like deleteInbox.
  emptyInbox: { handler: 'api/empty-inbox', access: ['table:get', 'table:query', 'table:update', 'table:delete', 'bucket:list', 'bucket:delete'], timeoutSeconds: MAX_ROUTE_TIMEOUT_SECONDS },
  listMessages: { handler: 'api/list-messages', access: ['table:get', 'table:query'] },
  waitForMessage: { handler: 'api/wait-for-message', access: ['table:get', 'table:query', 'bucket:read'], timeoutSeconds: MAX_ROUTE_TIMEOUT_SECONDS, longPoll: true },
  // As the GET form: the inbox, its messages since `after`, each message's item and (for large ones) body object.
  waitForMessages: { handler: 'api/wait-for-messages', access: ['table:get', 'table:query', 'bucket:read'], timeoutSeconds: MAX_ROUTE_TIMEOUT_SECONDS, longPoll: true, re2: true },
  getMessage: { handler: 'api/get-message', access: ['table:get', 'bucket:read'] },
  deleteMessage: { handler: 'api/delete-message', access: ['table:get', 'table:update', 'table:delete', 'bucket:list', 'bucket:delete'] },
  // As getMessage: the message's item and (for a large one) its body object.
  getMessageSnapshot: { handler: 'api/get-message-snapshot', access: ['table:get', 'bucket:read'] },
  getRawMessage: { handler: 'api/get-raw-message', access: ['table:get', 'bucket:read'] },
  // Reads the message, its body object and its raw mail; DNS (the authentication section) needs no IAM.
  getMessageChecks: { handler: 'api/get-message-checks', access: ['table:get', 'bucket:read', 'checks:cache'], timeoutSeconds: MAX_ROUTE_TIMEOUT_SECONDS },
  listDomains: { handler: 'api/list-domains', access: [] },
  createWebhook: { handler: 'api/create-webhook', access: ['table:get', 'table:put', 'table:update', 'secrets:seal'] },
  listWebhooks: { handler: 'api/list-webhooks', access: ['table:query'] },
  getWebhook: { handler: 'api/get-webhook', access: ['table:get'] },
  deleteWebhook: { handler: 'api/delete-webhook', access: ['table:get', 'table:update', 'table:delete'] },
  testWebhook: { handler: 'api/test-webhook', access: ['table:get', 'deliveries:send'] },
  listWebhookDeliveries: { handler: 'api/list-webhook-deliveries', access: ['table:get', 'table:query'] },
  getOpenApi: { handler: 'api/get-openapi', access: [] },
  getViewer: { handler: 'api/get-viewer', access: [] },
  getViewerAsset: { handler: 'api/get-viewer-asset', access: [] },
};

/** A route with what deploys behind it: the CDK stack and the local gateway iterate these. */
export type DeployedRoute = Route & RouteFunction;
export const DEPLOYED_ROUTES: readonly DeployedRoute[] = ROUTES.map((route) => ({ ...route, ...ROUTE_FUNCTIONS[route.name] }));

/** The handlers that serve the viewer's page and files (their deployed bundles carry them, see lib/viewer.ts). */
export const VIEWER_HANDLERS: readonly string[] = [ROUTE_FUNCTIONS.getViewer.handler, ROUTE_FUNCTIONS.getViewerAsset.handler];

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
 * and deletes under `inboxes/` only, and gives an expired inbox's stored bytes back to its account (an update).
 */
export const INBOX_CLEANUP_HANDLER = 'cleanup/inbox-objects';
export const INBOX_CLEANUP_ACCESS: readonly Access[] = ['bucket:list', 'bucket:delete', 'table:update'];
export const AUTHORIZER_HANDLER = 'api/authorizer';
/** The authorizer reads one key record by its hash. */
export const AUTHORIZER_ACCESS: readonly Access[] = ['table:get'];
