/**
 * The synthesized template, asserted against the route table, the plan table and the design; cdk-nag clean; and the
 * custom resource's bundle from it run as Lambda runs it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { SESClient, SetActiveReceiptRuleSetCommand } from '@aws-sdk/client-ses';
import { createApp, STACK_NAME } from '../../lib/app';
import { errorBody, functionId, HTTP_METHODS, KEYLESS_ROUTE_THROTTLE, STAGE_THROTTLE } from '../../lib/api';
import { LAMBDA_RUNTIME } from '../../lib/bundling';
import { DEFAULT_TIMEOUT_SECONDS } from '../../lib/functions';
import { DEAD_LETTER_RETENTION_DAYS, SES_RECEIVING_REGIONS } from '../../lib/mail-ingest';
import { NAG_ACKNOWLEDGEMENTS, NAG_REASONS } from '../../lib/nag';
import { actionsFor, BUCKET_OBJECT_ACTIONS, TABLE_ACTIONS } from '../../lib/permissions';
import { OBJECT_EXPIRY_DAYS } from '../../lib/storage';
import { DEFAULT_CONCURRENCY, OUTPUTS } from '../../lib/tempmail-service';
import { API_GATEWAY_TIMEOUT_SECONDS, MAX_ROUTE_TIMEOUT_SECONDS } from '../../lambdas/core/limits';
import { AUTHORIZER_CACHE_SECONDS, GATEWAY_RESPONSES, THROTTLE_RETRY_AFTER_SECONDS } from '../../lambdas/contract/gateway-responses';
import { BASE_PLANS, burstOf, PAID_PLANS, PLAN_NAMES, ratePerSecond } from '../../lambdas/core/plans';
import { VIEWER_HANDLERS, DEPLOYED_ROUTES } from '../../lambdas/layout/functions';
import { ACCOUNT_INDEX } from '../../lambdas/layout/table-layout';
import { COMPRESSION_MIN_BYTES } from '../../lambdas/contract/gateway-responses';
import { startControlPlane, type ControlPlane } from '../../local/aws/control-plane';
import { functionArtifact, invokeArtifact, type FunctionArtifact } from '../support/lambda-artifact';
import type { Json } from '../support/json';

const domains = ['mail.tempmail.test', 'inbox.tempmail.test', 'box.tempmail.test'];
const context = { 'tempmail:domains': domains, 'tempmail:activateReceiptRuleSet': false };
const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-'));
let template: Template;
/** The same stack with a hosted zone and rule-set activation; bundling skipped since only DNS and SES are checked. */
let zoned: Template;
/** The zoned template's functions, by the same ids. */
function zonedFns(): Record<string, Record<string, Json>> {
  const found: Record<string, Record<string, Json>> = {};
  for (const [logicalId, r] of Object.entries(zoned.findResources('AWS::Lambda::Function') as Record<string, Resource>)) {
    const id = /^TempMail(?:Api|Mail)?(\w+?)[0-9A-F]{8}$/.exec(logicalId)?.[1];
    if (id && r.Properties.Runtime === LAMBDA_RUNTIME.name) found[id] = r.Properties;
  }
  return found;
}
let report: { pluginReports: { pluginName: string; conclusion: string; violations: unknown[]; suppressedViolations: { ruleName: string; reason: string }[] }[] };

beforeAll(() => {
  const { app, stack } = createApp({ context, outdir });
  app.synth(); // throws if Json cdk-nag finding is unacknowledged
  template = Template.fromStack(stack);
  report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8'));
  const zonedApp = createApp({
    outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-zoned-')),
    context: {
      ...context,
      'tempmail:hostedZoneId': 'Z0123456789ABCDEFGHIJ',
      'tempmail:hostedZoneName': 'tempmail.test',
      'tempmail:alarmEmail': 'ops@tempmail.test',
      'tempmail:activateReceiptRuleSet': 'true',
      'aws:cdk:bundling-stacks': [],
      'tempmail:ingestConcurrency': '3',
      'tempmail:authorizerConcurrency': '0',
    },
  });
  zonedApp.app.synth();
  zoned = Template.fromStack(zonedApp.stack);
}, 120_000);
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

type Resource = { Properties: Record<string, Json> };

/** Our functions (the route handlers, authorizer and ingest), by construct id, e.g. `GetInboxFunction`. */
function ourFunctions(): Record<string, { logicalId: string; props: Record<string, Json> }> {
  const found: Record<string, { logicalId: string; props: Record<string, Json> }> = {};
  for (const [logicalId, r] of Object.entries(template.findResources('AWS::Lambda::Function') as Record<string, Resource>)) {
    if (r.Properties.Runtime !== LAMBDA_RUNTIME.name) continue;
    const id = /^TempMail(?:Api|Mail)?(\w+?)[0-9A-F]{8}$/.exec(logicalId)?.[1];
    if (id) found[id] = { logicalId, props: r.Properties };
  }
  return found;
}

/** Every IAM action granted to a function's role, apart from X-Ray and logs. */
function actionsOf(fn: { props: Record<string, Json> }): string[] {
  const role = fn.props.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))
    .sort();
}

/** Every statement of a function's role policies. */
function statementsOf(fn: { props: Record<string, Json> }): Record<string, Json>[] {
  const role = fn.props.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

/** A grant as "action resource", the resource named by what it is: `table`, `index inboxes_by_account`, `bucket inboxes/*`… */
function grantsOf(fn: { props: Record<string, Json> }): string[] {
  const named = (resource: unknown, condition: unknown): string => {
    const s = JSON.stringify(resource);
    if (s === '"*"') return '*';
    if (s.includes('/index/')) return `index ${s.split('/index/')[1].replace(/\W+$/, '')}`;
    const prefix = /"\/(inboxes|inbound)\/\*"/.exec(s);
    if (prefix) return `bucket ${prefix[1]}/*`;
    const [, id, attribute] = /"Fn::GetAtt":\["TempMail(\w+?)[0-9A-F]{8}","(\w+)"\]/.exec(s) ?? [];
    const names: Record<string, string> = {
      StorageTable: attribute === 'StreamArn' ? 'stream' : 'table', StorageMail: 'bucket', WebhooksSecretsKey: 'webhook key',
      WebhooksDeliveries: 'deliveries', WebhooksDeliveryDeadLetters: 'delivery dead letters', DeadLetters: 'ingest dead letters',
      CleanupDeadLetters: 'cleanup dead letters',
    };
    const name = (id && names[id]) ?? s;
    return condition ? `${name} if ${JSON.stringify(condition)}` : name;
  };
  return statementsOf(fn)
    .flatMap((st) => [st.Action].flat().flatMap((a: string) => [st.Resource].flat().map((r: unknown) => `${a} ${named(r, st.Condition)}`)))
    .sort();
}

/**
 * What each function's code path calls, read from it (lambdas/api → lambdas/usecases → lambdas/store) and written out
 * here by hand, so that a missing or an extra grant fails whatever lib/permissions.ts and the route table say.
 * Transactions are authorised item by item (their Put, Update and Delete items need PutItem, UpdateItem and
 * DeleteItem); no code issues ConditionCheck or BatchGetItem. The stream, SQS receive and dead-letter grants are what
 * the event sources and on-failure destinations need (CDK adds them).
 */
const LIST_INBOXES = 's3:ListBucket bucket if {"StringLike":{"s3:prefix":["inboxes/*"]}}';
const STREAM = ['dynamodb:DescribeStream stream', 'dynamodb:GetRecords stream', 'dynamodb:GetShardIterator stream', 'dynamodb:ListStreams stream'];
const GRANTS: Record<string, string[]> = {
  // The key record, by its hash.
  Authorizer: ['dynamodb:GetItem table'],
  // The account's inboxes on the index.
  ListInboxesFunction: ['dynamodb:Query index inboxes_by_account'],
  // Counts the live inboxes on the index, then puts the inbox and its address claim in one transaction.
  CreateInboxFunction: ['dynamodb:PutItem table', 'dynamodb:Query index inboxes_by_account'],
  GetInboxFunction: ['dynamodb:GetItem table'],
  // Reads the inbox, marks it deleting, deletes its objects (list + delete), queries and batch-deletes its messages,
  // then deletes the inbox and its claim.
  DeleteInboxFunction: ['dynamodb:BatchWriteItem table', 'dynamodb:DeleteItem table', 'dynamodb:GetItem table', 'dynamodb:Query table', 'dynamodb:UpdateItem table', 's3:DeleteObject bucket inboxes/*', LIST_INBOXES],
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
        expect.objectContaining({ TABLE_NAME: expect.anything(), BUCKET_NAME: expect.anything(), TEMPMAIL_DOMAINS: domains.join(','), POWERTOOLS_SERVICE_NAME: expect.any(String) }),
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

  it('grants no function ConditionCheckItem, BatchGetItem or Scan (no code path issues them), and the account index only where it is queried', () => {
    const fns = ourFunctions();
    for (const fn of Object.values(fns)) {
      expect(actionsOf(fn)).not.toEqual(expect.arrayContaining(['dynamodb:ConditionCheckItem']));
      expect(actionsOf(fn)).not.toEqual(expect.arrayContaining(['dynamodb:BatchGetItem']));
      expect(actionsOf(fn)).not.toEqual(expect.arrayContaining(['dynamodb:Scan']));
    }
    const withIndex = Object.entries(fns).filter(([, fn]) => statementsOf(fn).some((st) => JSON.stringify(st.Resource).includes(`/index/${ACCOUNT_INDEX.name}`)));
    expect(withIndex.map(([id]) => id).sort()).toEqual(['CreateInboxFunction', 'ListInboxesFunction']);
  });

  it('maps each access to its one IAM action in lib/permissions.ts', () => {
    expect(Object.values(TABLE_ACTIONS).every((actions) => actions.length === 1)).toBe(true);
    expect(BUCKET_OBJECT_ACTIONS).toEqual({
      'bucket:read': ['s3:GetObject'], 'bucket:write': ['s3:PutObject'], 'bucket:delete': ['s3:DeleteObject'],
      'inbound:read': ['s3:GetObject'], 'inbound:delete': ['s3:DeleteObject'],
    });
    const none = { table: [], accountIndex: [], objects: {}, listPrefixes: [], key: [], queue: [], deadLetters: [] };
    expect(actionsFor([])).toEqual(none);
    expect(actionsFor(['accounts:query', 'table:put'])).toEqual({ ...none, table: ['dynamodb:PutItem'], accountIndex: ['dynamodb:Query'] });
    expect(actionsFor(['bucket:write'])).toEqual({ ...none, objects: { 'inboxes/': ['s3:PutObject'] } });
    expect(actionsFor(['secrets:seal', 'deliveries:send'])).toEqual({ ...none, key: ['kms:Encrypt'], queue: ['sqs:SendMessage'] });
    expect(actionsFor(['bucket:list', 'bucket:delete'])).toEqual({ ...none, objects: { 'inboxes/': ['s3:DeleteObject'] }, listPrefixes: ['inboxes/'] });
    expect(actionsFor(['bucket:delete']).listPrefixes).toEqual([]);
    expect(actionsFor(['inbound:read', 'bucket:read']).objects).toEqual({ 'inbound/': ['s3:GetObject'], 'inboxes/': ['s3:GetObject'] });
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

describe('API', () => {
  it('authorizes with a cached REQUEST authorizer on X-API-Key and takes usage-plan keys from it', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.X-API-Key',
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_SECONDS,
    });
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    for (const route of DEPLOYED_ROUTES) {
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        OperationName: route.name,
        AuthorizationType: route.auth ? 'CUSTOM' : 'NONE',
        ApiKeyRequired: route.auth ? true : Match.absent(),
      });
    }
  });

  it('throttles the stage as a whole, and each keyless method (no usage plan limits them) further', () => {
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage') as Record<string, Resource>)[0].Properties;
    const settings = stage.MethodSettings as { ResourcePath: string; HttpMethod: string; ThrottlingRateLimit?: number; ThrottlingBurstLimit?: number }[];
    expect(settings).toContainEqual(expect.objectContaining({ ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: STAGE_THROTTLE.rateLimit, ThrottlingBurstLimit: STAGE_THROTTLE.burstLimit }));
    // The stage's burst bounds the authorizer's concurrent executions under a flood of unknown keys, so it must stay
    // well inside Lambda's unreserved pool (at least 100 always; 1,000 in all on a default account).
    expect(STAGE_THROTTLE.burstLimit).toBeLessThanOrEqual(1_000 - 100 - DEFAULT_CONCURRENCY.ingest - DEPLOYED_ROUTES.filter((r) => r.longPoll).length * DEFAULT_CONCURRENCY.longPoll - DEFAULT_CONCURRENCY.authorizer);
    const keyless = DEPLOYED_ROUTES.filter((r) => !r.auth);
    expect(keyless.map((r) => r.path).sort()).toEqual(['/', '/v1/openapi.json', '/viewer/{asset}']);
    // API Gateway names resources in method settings with each / after the first as ~1.
    const encoded = (p: string) => (p === '/' ? '/' : `/${p.replaceAll('/', '~1')}`);
    for (const route of keyless) {
      expect(settings).toContainEqual(
        expect.objectContaining({ ResourcePath: encoded(route.path), HttpMethod: route.method, ThrottlingRateLimit: KEYLESS_ROUTE_THROTTLE.rateLimit, ThrottlingBurstLimit: KEYLESS_ROUTE_THROTTLE.burstLimit }),
      );
    }
    expect(settings.filter((m) => m.ResourcePath !== '/*')).toHaveLength(keyless.length);
    expect(KEYLESS_ROUTE_THROTTLE.rateLimit).toBeLessThan(STAGE_THROTTLE.rateLimit);
  });

  it('has one usage plan per paid plan, throttled as the plan table says', () => {
    const plans = Object.values(template.findResources('AWS::ApiGateway::UsagePlan') as Record<string, Resource>).map((r) => r.Properties);
    expect(PAID_PLANS).toEqual(PLAN_NAMES.filter((p) => p !== 'free'));
    expect(plans).toHaveLength(PAID_PLANS.length);
    for (const name of PAID_PLANS) {
      const plan = BASE_PLANS[name];
      expect(plans).toContainEqual(
        expect.objectContaining({ UsagePlanName: `TempMail-${name}`, Throttle: { RateLimit: ratePerSecond(plan), BurstLimit: burstOf(plan) } }),
      );
    }
    // dev: 60/min → 1 per second, burst 10.
    expect(plans).toContainEqual(expect.objectContaining({ UsagePlanName: 'TempMail-dev', Throttle: { RateLimit: 1, BurstLimit: 10 } }));
  });

  it('renders every gateway response in the error format, with Retry-After on the 429s; DEFAULT_4XX/5XX keep the real status', () => {
    for (const [type, { status, message, keepStatus }] of Object.entries(GATEWAY_RESPONSES)) {
      const throttled = type === 'THROTTLED' || type === 'QUOTA_EXCEEDED';
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: keepStatus ? Match.absent() : String(status),
        ResponseTemplates: { 'application/json': JSON.stringify({ error: { code: status, message } }) },
        ResponseParameters: {
          'gatewayresponse.header.Content-Type': "'application/json'",
          'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
          'gatewayresponse.header.Access-Control-Expose-Headers': "'X-Request-Id, Retry-After'",
          ...(throttled ? { 'gatewayresponse.header.Retry-After': `'${THROTTLE_RETRY_AFTER_SECONDS}'` } : {}),
        },
      });
    }
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', Object.keys(GATEWAY_RESPONSES).length);
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', { ResponseType: type, StatusCode: Match.absent() });
    }
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', { ResponseType: 'INTEGRATION_TIMEOUT', StatusCode: '504' });
  });

  it('serves raw mail as a redirect (no binary media types: base64 bodies would reach clients as text)', () => {
    const api = Object.values(template.findResources('AWS::ApiGateway::RestApi') as Record<string, Resource>)[0].Properties;
    expect(api.BinaryMediaTypes).toBeUndefined();
    // The handler's 302 and the download are tested through the local gateway (test/integration/raw-download.test.ts);
    // here: the raw route's function may read inboxes/ only, enough to check the object and sign its URL.
    expect(DEPLOYED_ROUTES.find((r) => r.name === 'getRawMessage')!.access).toEqual(['table:get', 'bucket:read']);
  });

  it('keeps execution logs in a group with a retention, and traces with X-Ray nowhere (stage and functions alike)', () => {
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage') as Record<string, Resource>)[0].Properties;
    expect(stage.TracingEnabled).toBe(false);
    for (const fn of Object.values(ourFunctions())) expect(fn.props.TracingConfig).toBeUndefined();
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup') as Record<string, Resource>).map((r) => r.Properties);
    const execution = groups.filter((g) => JSON.stringify(g.LogGroupName ?? '').includes('API-Gateway-Execution-Logs_'));
    expect(execution).toHaveLength(1);
    expect(JSON.stringify(execution[0].LogGroupName)).toContain('/prod');
    expect(execution[0].RetentionInDays).toBeGreaterThan(0);
    for (const g of groups) expect(g.RetentionInDays).toBeGreaterThan(0);
  });

  it('answers every verb the route table does not define on a resource with a 405 mock in the error format', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method') as Record<string, Resource>).map((r) => r.Properties);
    const mocks = methods.filter((m) => m.Integration?.Type === 'MOCK');
    const paths = [...new Set(DEPLOYED_ROUTES.map((r) => r.path))];
    const expectedMocks = paths.reduce((n, p) => n + HTTP_METHODS.length - DEPLOYED_ROUTES.filter((r) => r.path === p).length, 0);
    expect(mocks).toHaveLength(expectedMocks);
    expect(methods).toHaveLength(DEPLOYED_ROUTES.length + expectedMocks);
    const allowedOnInbox = DEPLOYED_ROUTES.filter((r) => r.path === '/v1/inboxes/{inbox_id}').map((r) => r.method).join(', ');
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'PUT',
      Integration: Match.objectLike({
        Type: 'MOCK',
        IntegrationResponses: [
          Match.objectLike({
            StatusCode: '405',
            ResponseTemplates: { 'application/json': errorBody(405, `method not allowed; allowed: ${allowedOnInbox}`) },
            ResponseParameters: { 'method.response.header.Allow': `'${allowedOnInbox}'` },
          }),
        ],
      }),
    });
  });

  it('answers OPTIONS on every resource with a keyless 204 CORS preflight', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method') as Record<string, Resource>).map((r) => r.Properties);
    const preflights = methods.filter((m) => m.HttpMethod === 'OPTIONS');
    expect(preflights).toHaveLength(new Set(DEPLOYED_ROUTES.map((r) => r.path)).size);
    for (const m of preflights) {
      expect(m.AuthorizationType).toBe('NONE');
      expect(m.Integration.Type).toBe('MOCK');
      const params = m.Integration.IntegrationResponses[0].ResponseParameters;
      expect(m.Integration.IntegrationResponses[0].StatusCode).toBe('204');
      expect(params['method.response.header.Access-Control-Allow-Origin']).toBe("'*'");
      expect(params['method.response.header.Access-Control-Allow-Headers']).toBe("'X-API-Key, Content-Type'");
      expect(params['method.response.header.Access-Control-Expose-Headers']).toBe("'X-Request-Id, Retry-After'");
      expect(params['method.response.header.Access-Control-Allow-Methods']).toMatch(/OPTIONS'$/);
    }
  });

  it("deploys the viewer's built files inside the viewer functions' bundles, and compresses responses", () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { MinimumCompressionSize: COMPRESSION_MIN_BYTES });
    const fns = ourFunctions();
    for (const route of DEPLOYED_ROUTES.filter((r) => VIEWER_HANDLERS.includes(r.handler))) {
      const key = String(fns[functionId(route.name)].props.Code.S3Key);
      const bundle = path.join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
      expect(fs.existsSync(path.join(bundle, 'index.js'))).toBe(true);
      expect(fs.readFileSync(path.join(bundle, 'viewer', 'index.html'), 'utf8')).toMatch(/<script type="module" src="viewer\/app-\w+\.js">/);
      // Content-hashed names: sorted by extension, not by the hash.
      const assets = fs.readdirSync(path.join(bundle, 'viewer', 'assets')).sort((a, b) => path.extname(a).localeCompare(path.extname(b)));
      expect(assets).toEqual([expect.stringMatching(/^app-\w+\.css$/), expect.stringMatching(/^app-\w+\.js$/)]);
    }
  });

  it('writes an access log without callers or keys', () => {
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage') as Record<string, Resource>)[0].Properties;
    expect(stage.AccessLogSetting.DestinationArn).toBeDefined();
    expect(stage.AccessLogSetting.Format).toContain('$context.requestId');
    expect(stage.AccessLogSetting.Format).not.toMatch(/api[-_]?key|identity\.caller|identity\.user\b/i);
  });
});

describe('mail ingest', () => {
  it('receives mail with a scanning SES rule: S3 first, then the ingest Lambda as an Event', () => {
    template.hasResourceProperties('AWS::SES::ReceiptRule', {
      Rule: Match.objectLike({
        Enabled: true,
        ScanEnabled: true,
        Recipients: domains,
        Actions: [{ S3Action: Match.objectLike({ ObjectKeyPrefix: 'inbound/' }) }, { LambdaAction: Match.objectLike({ InvocationType: 'Event' }) }],
      }),
    });
    template.resourceCountIs('AWS::SES::EmailIdentity', 3);
    for (const d of domains) template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: d });
  });

  it('lets SES write raw mail only with aws:SourceAccount and aws:SourceArn of this rule set', () => {
    const policies = Object.values(template.findResources('AWS::S3::BucketPolicy') as Record<string, Resource>);
    const sesStatements = policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, Json>[])
      .filter((s) => s.Principal?.Service === 'ses.amazonaws.com');
    expect(sesStatements).toHaveLength(1);
    expect(sesStatements[0].Action).toBe('s3:PutObject');
    expect(sesStatements[0].Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
    expect(JSON.stringify(sesStatements[0].Condition.ArnLike['aws:SourceArn'])).toContain(':receipt-rule-set/TempMail-receipt:receipt-rule/*');
    expect(JSON.stringify(sesStatements[0].Resource)).toContain('/inbound/*');
  });

  it('lets SES invoke ingest only for a rule of this rule set (aws:SourceArn) and this account', () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission') as Record<string, Resource>)
      .map((r) => r.Properties)
      .filter((p) => p.Principal === 'ses.amazonaws.com');
    expect(permissions).toHaveLength(1);
    expect(permissions[0].SourceAccount).toEqual({ Ref: 'AWS::AccountId' });
    expect(JSON.stringify(permissions[0].SourceArn)).toContain(':receipt-rule-set/TempMail-receipt:receipt-rule/*');
    const ingestArn = { 'Fn::GetAtt': [ourFunctions().Ingest.logicalId, 'Arn'] };
    expect(permissions[0].FunctionName).toEqual(ingestArn);
  });

  it('fails a deployment outside the regions where SES receives mail, before anything is created', () => {
    const rules = template.toJSON().Rules as Record<string, { Assertions: { Assert: unknown; AssertDescription: string }[] }>;
    const region = Object.entries(rules).find(([id]) => id.includes('SesReceivingRegion'))![1];
    expect(region.Assertions[0].Assert).toEqual({ 'Fn::Contains': [[...SES_RECEIVING_REGIONS], { Ref: 'AWS::Region' }] });
    expect(region.Assertions[0].AssertDescription).toMatch(/SES does not receive mail in this region/);
    // Known at synth time, the region is refused as the context is: one error annotation, no stack trace, nothing built.
    const { stack } = createApp({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-r-')) }, { region: 'ap-south-1', account: '123456789012' });
    Annotations.fromStack(stack).hasError(`/${STACK_NAME}`, Match.stringLikeRegexp('^SES does not receive mail in ap-south-1; deploy to one of us-east-1, '));
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toHaveLength(1);
    expect(Template.fromStack(stack).findResources('AWS::Lambda::Function')).toEqual({});
  });

  it('refuses the example domains cdk.json ships with, naming the setting, as an error annotation on an empty stack', () => {
    const placeholders = { ...context, 'tempmail:domains': ['mail.example.com', 'inbox.example.com', 'box.example.com'], 'aws:cdk:bundling-stacks': [] };
    const { stack } = createApp({ context: placeholders, outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-x-')) });
    Annotations.fromStack(stack).hasError(`/${STACK_NAME}`, Match.stringLikeRegexp('tempmail:domains still lists example domains'));
    expect(Template.fromStack(stack).findResources('AWS::Lambda::Function')).toEqual({});
  });

  it('notifies an SNS topic from every alarm (in alarm and back to OK), with the e-mail subscription from context', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).map((r) => r.Properties);
    expect(alarms).toHaveLength(6); // API 5xx, ingest errors, ingest dead letters (depth, age), webhook dead letters, cleanup dead letters
    const topic = Object.keys(template.findResources('AWS::SNS::Topic'));
    expect(topic).toHaveLength(1);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topic[0] }]);
      expect(alarm.OKActions).toEqual([{ Ref: topic[0] }]);
    }
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    zoned.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@tempmail.test' });
    // Half the replay window gone: a second notice.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateAgeOfOldestMessage', Threshold: (DEAD_LETTER_RETENTION_DAYS / 2) * 86_400 });
    template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: DEAD_LETTER_RETENTION_DAYS * 86_400 });
    expect(DEAD_LETTER_RETENTION_DAYS).toBe(14); // SQS's maximum: the documented replay window
  });

  it('retries ingest twice, then sends it to an encrypted, TLS-only dead-letter queue watched by an alarm', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumRetryAttempts: 2, DestinationConfig: { OnFailure: { Destination: Match.anyValue() } } });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: Match.objectLike({ Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) }),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateNumberOfMessagesVisible', Namespace: 'AWS/SQS', Threshold: 1 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Errors', Namespace: 'AWS/Lambda' });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: '5XXError', Namespace: 'AWS/ApiGateway' });
  });

  it('has the rule-set resource in every form (so deletion can deactivate ours), activating only when asked; no DNS without a zone', () => {
    template.hasResourceProperties('Custom::ReceiptRuleSetActivation', { RuleSetName: 'TempMail-receipt', Activate: 'false' });
    zoned.hasResourceProperties('Custom::ReceiptRuleSetActivation', { RuleSetName: 'TempMail-receipt', Activate: 'true' });
    template.resourceCountIs('Custom::AWS', 0);
    template.resourceCountIs('AWS::Route53::RecordSet', 0);
    // Deleted before the rule set: it depends on the set's rule.
    const [activation] = Object.values(template.findResources('Custom::ReceiptRuleSetActivation') as Record<string, { DependsOn: string[] }>);
    const rule = Object.keys(template.findResources('AWS::SES::ReceiptRule'))[0];
    expect(activation.DependsOn).toContain(rule);
  });

  it('with a hosted zone: three DKIM CNAMEs and an MX per domain', () => {
    zoned.resourceCountIs('AWS::Route53::RecordSet', domains.length * 4);
    for (const d of domains) {
      zoned.hasResourceProperties('AWS::Route53::RecordSet', {
        Type: 'MX',
        Name: `${d}.`,
        HostedZoneId: 'Z0123456789ABCDEFGHIJ',
        ResourceRecords: [{ 'Fn::Join': ['', ['10 inbound-smtp.', { Ref: 'AWS::Region' }, '.amazonaws.com']] }],
      });
    }
    // DKIM names are SES's own fully qualified token names, used as they are.
    const cnames = Object.values(zoned.findResources('AWS::Route53::RecordSet', { Properties: { Type: 'CNAME' } }) as Record<string, Resource>);
    expect(cnames).toHaveLength(domains.length * 3);
    for (const cname of cnames) {
      expect(cname.Properties.Name).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/Identity/), expect.stringMatching(/^DkimDNSTokenName[123]$/)] });
      expect(cname.Properties.ResourceRecords).toEqual([{ 'Fn::GetAtt': [expect.stringMatching(/Identity/), expect.stringMatching(/^DkimDNSTokenValue[123]$/)] }]);
    }
  });
});

describe('storage', () => {
  it('keeps data in one on-demand table with TTL, PITR and deletion protection, retained on stack deletion', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
        TimeToLiveSpecification: { AttributeName: 'expires_at_epoch', Enabled: true },
        Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true }, DeletionProtectionEnabled: true })],
      }),
    });
  });

  it('keeps mail in a private, encrypted, TLS-only bucket that expires it after the longest plan ttl plus a margin', () => {
    const longestTtlDays = Math.max(...PLAN_NAMES.map((p) => BASE_PLANS[p].max_ttl_seconds)) / 86_400;
    expect(OBJECT_EXPIRY_DAYS).toBeGreaterThan(longestTtlDays);
    expect(OBJECT_EXPIRY_DAYS).toBeLessThanOrEqual(longestTtlDays + 3);
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'mail/' }),
      // The viewer's Raw tab follows the API's redirect to a pre-signed URL, cross-origin: reads only.
      CorsConfiguration: { CorsRules: [{ AllowedMethods: ['GET', 'HEAD'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], MaxAge: 3_600 }] },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: 'inbound/', ExpirationInDays: OBJECT_EXPIRY_DAYS, Status: 'Enabled' }),
          Match.objectLike({ Prefix: 'inboxes/', ExpirationInDays: OBJECT_EXPIRY_DAYS, Status: 'Enabled' }),
        ]),
      },
    });
    for (const bucket of Object.values(template.findResources('AWS::S3::BucketPolicy') as Record<string, Resource>)) {
      expect(bucket.Properties.PolicyDocument.Statement).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    }
  });
});

it('outputs what the admin CLI reads', () => {
  const outputs = Object.keys(template.toJSON().Outputs);
  expect(outputs).toEqual(
    expect.arrayContaining([OUTPUTS.apiUrl, OUTPUTS.restApiId, OUTPUTS.tableName, OUTPUTS.bucketName, OUTPUTS.deadLetterQueueUrl, OUTPUTS.ingestFunctionName, ...PAID_PLANS.map(OUTPUTS.usagePlanId)]),
  );
  expect(OUTPUTS.usagePlanId('dev')).toBe('UsagePlanIdDev');
});

it('passes cdk-nag AwsSolutions with no unacknowledged finding, each acknowledgement with a reason', () => {
  const nag = report.pluginReports.find((r) => r.pluginName === 'AwsSolutions')!;
  expect(nag.violations).toEqual([]);
  expect(nag.conclusion).toBe('success');
  expect(nag.suppressedViolations.length).toBeGreaterThan(0);
  const reasons = new Set(Object.values(NAG_REASONS) as string[]);
  for (const suppressed of nag.suppressedViolations) expect(reasons.has(suppressed.reason)).toBe(true);
  for (const reason of reasons) expect(reason.length).toBeGreaterThan(60);
  // Every acknowledgement sits on one construct, never on the whole stack or app.
  for (const ack of NAG_ACKNOWLEDGEMENTS) expect(ack.path.split('/').length).toBeGreaterThanOrEqual(2);
});

/**
 * The custom resource as CloudFormation's provider runs it: its bundle from cdk.out, its Handler resolved and called
 * as Lambda calls it (handler(event, context)), the template's Environment, SES pointed at the control-plane
 * stand-in, and each SES call allowed only if the function's synthesized role policy grants it.
 */
describe('the receipt-rule-set custom resource, as deployed', () => {
  const CUSTOMER_SET = 'CustomerRules';
  let cp: ControlPlane;
  let fn: FunctionArtifact;
  let ruleSetName: string;
  let properties: Record<string, unknown>;

  beforeAll(async () => {
    fn = functionArtifact(outdir, STACK_NAME, /RuleSetActivationHandler[0-9A-F]{8}$/);
    const [activation] = Object.values(template.findResources('Custom::ReceiptRuleSetActivation') as Record<string, Resource>);
    properties = activation.Properties;
    ruleSetName = (Object.values(template.findResources('AWS::SES::ReceiptRuleSet') as Record<string, Resource>)[0]).Properties.RuleSetName;
    const statements = statementsOf({ props: ourFunctions().RuleSetActivationHandler.props }).filter((s) => s.Effect === 'Allow');
    const list = (v: string | string[]) => (Array.isArray(v) ? v : [v]);
    cp = await startControlPlane({
      ruleSets: [ruleSetName, CUSTOMER_SET],
      activeRuleSet: CUSTOMER_SET,
      authorize: (call) =>
        statements.some((s) => list(s.Action).includes(call.action) && list(s.Resource).some((r) => r === '*' || r === call.resource))
          ? { allowed: true }
          : { allowed: false, reason: 'no statement of the function’s role policy allows it' },
    });
  });
  afterAll(() => cp?.close());

  const event = (type: 'Create' | 'Update' | 'Delete', activate: boolean, oldActivate?: boolean) => {
    const base = {
      RequestType: type,
      ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:provider',
      ResponseURL: 'https://cloudformation-custom-resource-response.invalid/',
      StackId: `arn:aws:cloudformation:us-east-1:000000000000:stack/${STACK_NAME}/1`,
      RequestId: `request-${type}`,
      LogicalResourceId: 'RuleSetActivation',
      ResourceType: 'Custom::ReceiptRuleSetActivation',
      ResourceProperties: { ...properties, ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:provider', Activate: String(activate) },
    };
    return type === 'Create'
      ? base
      : { ...base, PhysicalResourceId: ruleSetName, ...(type === 'Update' ? { OldResourceProperties: { ...base.ResourceProperties, Activate: String(oldActivate) } } : {}) };
  };
  const run = async (e: ReturnType<typeof event>) => {
    const outcome = await invokeArtifact(fn, e, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'ASIARULESETROLE',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SESSION_TOKEN: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...cp.endpointEnv(),
    });
    expect(outcome).toEqual({ result: { PhysicalResourceId: ruleSetName }, logs: expect.any(String) });
    return outcome.logs;
  };

  it('names the custom resource’s properties the bundle reads', () => {
    expect(fn.handler).toBe('index.handler');
    expect(properties).toEqual(expect.objectContaining({ RuleSetName: ruleSetName, Activate: 'false' }));
  });

  it('Create with activation, Update toggling it, Delete: each ends with the expected active set, none fails', async () => {
    const logs = await run(event('Create', true));
    expect(cp.activeRuleSet()).toBe(ruleSetName);
    // The project's logger (JSON lines), not console.log.
    expect(JSON.parse(logs.trim().split('\n').pop()!)).toEqual(expect.objectContaining({ level: 'INFO', message: 'receipt rule set activated', ruleSet: ruleSetName }));
    await run(event('Update', false, true));
    expect(cp.activeRuleSet()).toBeUndefined();
    await run(event('Update', true, false));
    expect(cp.activeRuleSet()).toBe(ruleSetName);
    await run(event('Delete', true));
    expect(cp.activeRuleSet()).toBeUndefined();
  }, 120_000);

  it('leaves a set the account switched to alone, on Update and on Delete (cdk destroy)', async () => {
    await run(event('Create', false));
    expect(cp.activeRuleSet()).toBeUndefined();
    const ses = new SESClient({ region: 'us-east-1', endpoint: cp.endpoint, credentials: { accessKeyId: 'operator', secretAccessKey: 'x' } });
    await ses.send(new SetActiveReceiptRuleSetCommand({ RuleSetName: CUSTOMER_SET }));
    await run(event('Update', false, true));
    await run(event('Delete', false));
    expect(cp.activeRuleSet()).toBe(CUSTOMER_SET);
    // Every call the function made was one its role allows.
    expect(cp.calls().filter((c) => c.accessKeyId === 'ASIARULESETROLE' && !c.allowed)).toEqual([]);
    expect(cp.calls().filter((c) => c.accessKeyId === 'ASIARULESETROLE').length).toBeGreaterThan(0);
  }, 120_000);
});
