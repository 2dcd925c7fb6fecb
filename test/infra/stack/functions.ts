/**
 * The functions of the template: one per route plus the authorizer, ingest and the workers; their timeouts and
 * reserved concurrency; and their IAM grants, each function's written out here from what its code calls.
 */
import { functionId } from '../../../lib/api';
import { LAMBDA_RUNTIME } from '../../../lib/bundling';
import { DEFAULT_TIMEOUT_SECONDS } from '../../../lib/functions';
import { actionsFor, BUCKET_OBJECT_ACTIONS, TABLE_ACTIONS } from '../../../lib/permissions';
import { DEFAULT_CONCURRENCY } from '../../../lib/tempmail-service';
import { API_GATEWAY_TIMEOUT_SECONDS, MAX_ROUTE_TIMEOUT_SECONDS } from '../../../lambdas/core/limits';
import { DEPLOYED_ROUTES } from '../../../lambdas/layout/functions';
import { ACCOUNT_INDEX } from '../../../lambdas/layout/table-layout';
import type { Json } from '../../support/json';
import { actionsOf, domains, grantsOf, ourFunctions, statementsOf, template, zonedFns } from './fixture';

/**
 * What each function's code path calls, read from it (lambdas/api → lambdas/usecases → lambdas/store) and written out
 * here by hand, so that a missing or an extra grant fails whatever lib/permissions.ts and the route table say.
 * Transactions are authorised item by item (their Put, Update and Delete items need PutItem, UpdateItem and
 * DeleteItem); no code issues ConditionCheck. The stream, SQS receive and dead-letter grants are what
 * the event sources and on-failure destinations need (CDK adds them).
 */
const LIST_INBOXES = 's3:ListBucket bucket if {"StringLike":{"s3:prefix":["inboxes/*"]}}';
const STREAM = ['dynamodb:DescribeStream stream', 'dynamodb:GetRecords stream', 'dynamodb:GetShardIterator stream', 'dynamodb:ListStreams stream'];
const GRANTS: Record<string, string[]> = {
  // The key record, by its hash.
  Authorizer: ['dynamodb:GetItem table'],
  // The account's inboxes on the index, or a group's on its own; a page's groups from the items (BatchGetItem).
  ListInboxesFunction: ['dynamodb:BatchGetItem table', 'dynamodb:Query index inboxes_by_account', 'dynamodb:Query index inboxes_by_group'],
  // Counts the live inboxes on the index, then puts the inbox and its address claim in one transaction.
  CreateInboxFunction: ['dynamodb:PutItem table', 'dynamodb:Query index inboxes_by_account'],
  GetInboxFunction: ['dynamodb:GetItem table'],
  // Reads the inbox, marks it deleting, deletes its objects (list + delete), queries and batch-deletes its messages,
  // then deletes the inbox and its claim.
  DeleteInboxFunction: ['dynamodb:BatchWriteItem table', 'dynamodb:DeleteItem table', 'dynamodb:GetItem table', 'dynamodb:Query table', 'dynamodb:UpdateItem table', 's3:DeleteObject bucket inboxes/*', LIST_INBOXES],
  // A group's inboxes on the group index, each deleted as DeleteInboxFunction does.
  DeleteInboxesFunction: ['dynamodb:BatchWriteItem table', 'dynamodb:DeleteItem table', 'dynamodb:GetItem table', 'dynamodb:Query index inboxes_by_group', 'dynamodb:Query table', 'dynamodb:UpdateItem table', 's3:DeleteObject bucket inboxes/*', LIST_INBOXES],
  // Reads the inbox, lists a batch of its messages, deletes each with the count in one transaction and its objects.
  EmptyInboxFunction: ['dynamodb:DeleteItem table', 'dynamodb:GetItem table', 'dynamodb:Query table', 'dynamodb:UpdateItem table', 's3:DeleteObject bucket inboxes/*', LIST_INBOXES],
  ListMessagesFunction: ['dynamodb:GetItem table', 'dynamodb:Query table'],
  // Polls the messages since the cursor, then reads the message and its body object (404 if missing: ListBucket); POST too.
  WaitForMessageFunction: ['dynamodb:GetItem table', 'dynamodb:Query table', 's3:GetObject bucket inboxes/*', LIST_INBOXES],
  WaitForMessagesFunction: ['dynamodb:GetItem table', 'dynamodb:Query table', 's3:GetObject bucket inboxes/*', LIST_INBOXES],
  GetMessageFunction: ['dynamodb:GetItem table', 's3:GetObject bucket inboxes/*', LIST_INBOXES],
  GetMessageSnapshotFunction: ['dynamodb:GetItem table', 's3:GetObject bucket inboxes/*', LIST_INBOXES],
  // Reads inbox and message, deletes the message and decrements the count in one transaction, deletes its objects.
  DeleteMessageFunction: ['dynamodb:DeleteItem table', 'dynamodb:GetItem table', 'dynamodb:UpdateItem table', 's3:DeleteObject bucket inboxes/*', LIST_INBOXES],
  // HEAD of the raw object, then a presigned GET (signed with this role: s3:GetObject).
  GetRawMessageFunction: ['dynamodb:GetItem table', 's3:GetObject bucket inboxes/*', LIST_INBOXES],
  // The message, its body object and its raw mail; its DNS queries (the authentication section) need no grant.
  // Writes its cache beside the message (checks-v<version>.json), no other object.
  GetMessageChecksFunction: ['dynamodb:GetItem table', 's3:GetObject bucket inboxes/*', LIST_INBOXES, 's3:PutObject bucket inboxes/*/*/checks-v1.json'],
  ListDomainsFunction: [],
  // Reads the inbox it is scoped to, seals the secret, counts and puts the webhook in one transaction.
  CreateWebhookFunction: ['dynamodb:GetItem table', 'dynamodb:PutItem table', 'dynamodb:UpdateItem table', 'kms:Encrypt webhook key'],
  ListWebhooksFunction: ['dynamodb:Query table'],
  GetWebhookFunction: ['dynamodb:GetItem table'],
  DeleteWebhookFunction: ['dynamodb:DeleteItem table', 'dynamodb:GetItem table', 'dynamodb:UpdateItem table'],
  TestWebhookFunction: ['dynamodb:GetItem table', 'sqs:SendMessage deliveries'],
  ListWebhookDeliveriesFunction: ['dynamodb:GetItem table', 'dynamodb:Query table'],
  GetOpenApiFunction: [],
  GetViewerFunction: [],
  GetViewerAssetFunction: [],
  // Address claims, the day's usage, an inbox's messages of the day (its per-inbox cap), a retried message; the
  // message put with the inbox count and usage updates in one transaction. Raw mail read and deleted under inbound/,
  // the copies written (attachments copied from the first inbox's copy) and undone (list + delete) under inboxes/.
  Ingest: [
    'dynamodb:GetItem table', 'dynamodb:PutItem table', 'dynamodb:Query table', 'dynamodb:UpdateItem table',
    's3:DeleteObject bucket inbound/*', 's3:DeleteObject bucket inboxes/*', 's3:GetObject bucket inbound/*', 's3:GetObject bucket inboxes/*', LIST_INBOXES, 's3:PutObject bucket inboxes/*',
    'sqs:GetQueueAttributes ingest dead letters', 'sqs:GetQueueUrl ingest dead letters', 'sqs:SendMessage ingest dead letters',
  ],
  RuleSetActivationHandler: ['ses:DescribeActiveReceiptRuleSet *', 'ses:SetActiveReceiptRuleSet *'],
  // A removed inbox's objects: list + delete under inboxes/; an expired one's stored bytes off its account (an update).
  CleanupInboxObjects: [
    ...STREAM, 'dynamodb:UpdateItem table', 's3:DeleteObject bucket inboxes/*', LIST_INBOXES,
    'sqs:GetQueueAttributes cleanup dead letters', 'sqs:GetQueueUrl cleanup dead letters', 'sqs:SendMessage cleanup dead letters',
  ],
  // The inbox of a stream message (for its account), the account's webhooks; deliveries queued.
  WebhooksDispatcher: [
    ...STREAM, 'dynamodb:GetItem table', 'dynamodb:Query table',
    'sqs:GetQueueAttributes delivery dead letters', 'sqs:GetQueueUrl delivery dead letters', 'sqs:SendMessage deliveries', 'sqs:SendMessage delivery dead letters',
  ],
  // The webhook, its secret opened, the attempt recorded, the webhook disabled (an update), the retry or dead letter.
  WebhooksSender: [
    'dynamodb:GetItem table', 'dynamodb:PutItem table', 'dynamodb:UpdateItem table', 'kms:Decrypt webhook key',
    'sqs:ChangeMessageVisibility deliveries', 'sqs:DeleteMessage deliveries', 'sqs:GetQueueAttributes deliveries', 'sqs:GetQueueUrl deliveries', 'sqs:ReceiveMessage deliveries', 'sqs:SendMessage deliveries',
    'sqs:SendMessage delivery dead letters',
  ],
};
for (const grants of Object.values(GRANTS)) grants.sort();

export function functionTests(): void {
  describe('functions', () => {
    it('has exactly one function per route, plus the authorizer and ingest, all ARM64 on the pinned runtime', () => {
      const fns = ourFunctions();
      expect(Object.keys(fns).sort()).toEqual([...DEPLOYED_ROUTES.map((r) => functionId(r.name)), 'Authorizer', 'CleanupInboxObjects', 'Ingest', 'RuleSetActivationHandler', 'WebhooksDispatcher', 'WebhooksSender'].sort());
      expect(LAMBDA_RUNTIME.name).toBe('nodejs22.x');
      for (const [id, fn] of Object.entries(fns)) {
        if (id === 'RuleSetActivationHandler') continue; // deploy-time only: no table, bucket or domains
        expect(fn.props.Architectures).toEqual(['arm64']);
        expect(fn.props.Handler).toBe('index.handler');
        expect(fn.props.Environment.Variables).toEqual(
          // The store is stated, not left to the config readers' default (the embedded store of `npm start`).
          expect.objectContaining({
            TEMPMAIL_STORE: 'dynamodb',
            TABLE_NAME: expect.anything(),
            BUCKET_NAME: expect.anything(),
            TEMPMAIL_DOMAINS: domains.join(','),
            POWERTOOLS_SERVICE_NAME: expect.any(String),
          }),
        );
      }
      for (const route of DEPLOYED_ROUTES) {
        expect(fns[functionId(route.name)].props.Timeout).toBe(route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS);
        template.hasResourceProperties('AWS::ApiGateway::Method', { HttpMethod: route.method, OperationName: route.name });
      }
    });

    it("times every API function out under API Gateway's 29 s, so the handler's own 503 reaches the client", () => {
      const fns = ourFunctions();
      expect(MAX_ROUTE_TIMEOUT_SECONDS).toBeLessThan(API_GATEWAY_TIMEOUT_SECONDS);
      for (const route of DEPLOYED_ROUTES) expect([route.name, fns[functionId(route.name)].props.Timeout]).toEqual([route.name, expect.any(Number)]);
      for (const route of DEPLOYED_ROUTES) expect(fns[functionId(route.name)].props.Timeout).toBeLessThanOrEqual(27);
      expect(fns.Authorizer.props.Timeout).toBeLessThan(API_GATEWAY_TIMEOUT_SECONDS);
      expect([fns.WaitForMessageFunction.props.Timeout, fns.WaitForMessagesFunction.props.Timeout]).toEqual([27, 27]);
    });

    it('reserves concurrency for ingest, caps the long-poll function, and puts no ceiling on the authorizer; nothing else', () => {
      const fns = ourFunctions();
      expect(fns.Ingest.props.ReservedConcurrentExecutions).toBe(DEFAULT_CONCURRENCY.ingest);
      // A reservation is a ceiling: a flood of unknown keys that reached it turned every key check into a 500. The
      // stage throttle bounds the authorizer instead (the API tests below).
      expect(fns.Authorizer.props.ReservedConcurrentExecutions).toBeUndefined();
      for (const route of DEPLOYED_ROUTES) expect([route.name, fns[functionId(route.name)].props.ReservedConcurrentExecutions]).toEqual([route.name, route.longPoll ? DEFAULT_CONCURRENCY.longPoll : undefined]);
      expect(DEPLOYED_ROUTES.filter((r) => r.longPoll).map((r) => r.name)).toEqual(['waitForMessage', 'waitForMessages']);
      // Set from context; 0 means none.
      expect(zonedFns().Ingest.ReservedConcurrentExecutions).toBe(3);
      expect(zonedFns().Authorizer.ReservedConcurrentExecutions).toBeUndefined();
    });

    it('grants each function exactly what its code calls: per function, written out here, not derived from lib/permissions.ts', () => {
      const fns = ourFunctions();
      const granted = Object.fromEntries(Object.entries(fns).map(([id, fn]) => [id, grantsOf(fn)]));
      expect(granted).toEqual(GRANTS);
    });

    it("grants no function ConditionCheckItem or Scan, BatchGetItem only the inbox list (its page's groups), and the account index only where it is queried", () => {
      const fns = ourFunctions();
      for (const [id, fn] of Object.entries(fns)) {
        expect(actionsOf(fn)).not.toEqual(expect.arrayContaining(['dynamodb:ConditionCheckItem']));
        if (id !== 'ListInboxesFunction') expect(actionsOf(fn)).not.toEqual(expect.arrayContaining(['dynamodb:BatchGetItem']));
        expect(actionsOf(fn)).not.toEqual(expect.arrayContaining(['dynamodb:Scan']));
      }
      const withIndex = Object.entries(fns).filter(([, fn]) => statementsOf(fn).some((st) => JSON.stringify(st.Resource).includes(`/index/${ACCOUNT_INDEX.name}`)));
      expect(withIndex.map(([id]) => id).sort()).toEqual(['CreateInboxFunction', 'ListInboxesFunction']);
    });

    it('maps each access to its one IAM action in lib/permissions.ts', () => {
      expect(Object.values(TABLE_ACTIONS).every((actions) => actions.length === 1)).toBe(true);
      expect(BUCKET_OBJECT_ACTIONS).toEqual({
        'bucket:read': ['s3:GetObject'], 'bucket:write': ['s3:PutObject'], 'bucket:delete': ['s3:DeleteObject'], 'checks:cache': ['s3:PutObject'],
        'inbound:read': ['s3:GetObject'], 'inbound:delete': ['s3:DeleteObject'],
      });
      const none = { table: [], accountIndex: [], groupIndex: [], objects: {}, listPrefixes: [], key: [], queue: [], deadLetters: [] };
      expect(actionsFor([])).toEqual(none);
      expect(actionsFor(['accounts:query', 'table:put'])).toEqual({ ...none, table: ['dynamodb:PutItem'], accountIndex: ['dynamodb:Query'] });
      expect(actionsFor(['bucket:write'])).toEqual({ ...none, objects: { 'inboxes/*': ['s3:PutObject'] } });
      expect(actionsFor(['bucket:read', 'checks:cache']).objects).toEqual({ 'inboxes/*': ['s3:GetObject'], 'inboxes/*/*/checks-v1.json': ['s3:PutObject'] });
      expect(actionsFor(['secrets:seal', 'deliveries:send'])).toEqual({ ...none, key: ['kms:Encrypt'], queue: ['sqs:SendMessage'] });
      expect(actionsFor(['bucket:list', 'bucket:delete'])).toEqual({ ...none, objects: { 'inboxes/*': ['s3:DeleteObject'] }, listPrefixes: ['inboxes/'] });
      expect(actionsFor(['bucket:delete']).listPrefixes).toEqual([]);
      expect(actionsFor(['inbound:read', 'bucket:read']).objects).toEqual({ 'inbound/*': ['s3:GetObject'], 'inboxes/*': ['s3:GetObject'] });
    });

    it('gives the API roles no access to inbound/ (raw mail SES drops), lists only under inboxes/, the authorizer GetItem only', () => {
      const fns = ourFunctions();
      const objectResources = (fn: { props: Record<string, Json> }) =>
        statementsOf(fn).filter((s) => [s.Action].flat().some((a: string) => a.startsWith('s3:') && a !== 's3:ListBucket')).map((s) => JSON.stringify(s.Resource));
      for (const route of DEPLOYED_ROUTES) {
        for (const resource of objectResources(fns[functionId(route.name)])) {
          expect(resource).toContain('/inboxes/*');
          expect(resource).not.toContain('inbound');
        }
        for (const list of statementsOf(fns[functionId(route.name)]).filter((s) => s.Action === 's3:ListBucket')) {
          expect(list.Condition).toEqual({ StringLike: { 's3:prefix': ['inboxes/*'] } });
        }
      }
      expect(objectResources(fns.Ingest).join(' ')).toContain('/inbound/*');
      expect(objectResources(fns.Ingest).join(' ')).not.toMatch(/Arn"\]\},"\/\*"/); // never the whole bucket
      expect(actionsOf(fns.Authorizer)).toEqual(['dynamodb:GetItem']);
    });
  });
}
