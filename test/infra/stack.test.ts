/** The synthesized template, asserted against the route table, the plan table and the design; cdk-nag clean. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../../lib/app';
import { errorBody, functionId, HTTP_METHODS } from '../../lib/api';
import { LAMBDA_RUNTIME } from '../../lib/bundling';
import { DEFAULT_TIMEOUT_SECONDS } from '../../lib/functions';
import { NAG_ACKNOWLEDGEMENTS, NAG_REASONS } from '../../lib/nag';
import { actionsFor, BUCKET_OBJECT_ACTIONS, TABLE_ACTIONS } from '../../lib/permissions';
import { OBJECT_EXPIRY_DAYS } from '../../lib/storage';
import { OUTPUTS } from '../../lib/tempmail-service';
import { AUTHORIZER_CACHE_SECONDS, GATEWAY_RESPONSES, THROTTLE_RETRY_AFTER_SECONDS } from '../../lambdas/core/gateway-responses';
import { BASE_PLANS, burstOf, PAID_PLANS, PLAN_NAMES, ratePerSecond } from '../../lambdas/core/plans';
import { AUTHORIZER_ACCESS, INGEST_ACCESS, ROUTES, VIEWER_HANDLERS } from '../../lambdas/core/routes';
import { COMPRESSION_MIN_BYTES } from '../../lambdas/core/gateway-responses';

const domains = ['mail.example.com', 'inbox.example.com', 'box.example.com'];
const context = { 'tempmail:domains': domains, 'tempmail:activateReceiptRuleSet': false };
const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-'));
let template: Template;
/** The same stack with a hosted zone and rule-set activation; bundling skipped since only DNS and SES are checked. */
let zoned: Template;
let report: { pluginReports: { pluginName: string; conclusion: string; violations: unknown[]; suppressedViolations: { ruleName: string; reason: string }[] }[] };

beforeAll(() => {
  const { app, stack } = createApp({ context, outdir });
  app.synth(); // throws if any cdk-nag finding is unacknowledged
  template = Template.fromStack(stack);
  report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8'));
  const zonedApp = createApp({
    outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-zoned-')),
    context: {
      ...context,
      'tempmail:hostedZoneId': 'Z0123456789ABCDEFGHIJ',
      'tempmail:hostedZoneName': 'example.com',
      'tempmail:activateReceiptRuleSet': 'true',
      'aws:cdk:bundling-stacks': [],
    },
  });
  zonedApp.app.synth();
  zoned = Template.fromStack(zonedApp.stack);
}, 120_000);
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

type Resource = { Properties: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Our functions (the route handlers, authorizer and ingest), by construct id, e.g. `GetInboxFunction`. */
function ourFunctions(): Record<string, { logicalId: string; props: Record<string, any> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const found: Record<string, { logicalId: string; props: Record<string, any> }> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const [logicalId, r] of Object.entries(template.findResources('AWS::Lambda::Function') as Record<string, Resource>)) {
    if (r.Properties.Runtime !== LAMBDA_RUNTIME.name) continue;
    const id = /^TempMail(?:Api|Mail)?(\w+?)[0-9A-F]{8}$/.exec(logicalId)?.[1];
    if (id) found[id] = { logicalId, props: r.Properties };
  }
  return found;
}

/** Every IAM action granted to a function's role, apart from X-Ray and logs. */
function actionsOf(fn: { props: Record<string, any> }): string[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  const role = fn.props.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))
    .sort();
}

const expectedActions = (access: Parameters<typeof actionsFor>[0]) => {
  const a = actionsFor(access);
  return [...a.table, ...a.objects, ...(a.listBucket ? ['s3:ListBucket'] : [])].sort();
};

describe('functions', () => {
  it('has exactly one function per route, plus the authorizer and ingest, all ARM64 on the pinned runtime', () => {
    const fns = ourFunctions();
    expect(Object.keys(fns).sort()).toEqual([...ROUTES.map((r) => functionId(r.name)), 'Authorizer', 'Ingest'].sort());
    expect(LAMBDA_RUNTIME.name).toBe('nodejs22.x');
    for (const fn of Object.values(fns)) {
      expect(fn.props.Architectures).toEqual(['arm64']);
      expect(fn.props.Handler).toBe('index.handler');
      expect(fn.props.Environment.Variables).toEqual(
        expect.objectContaining({ TABLE_NAME: expect.anything(), BUCKET_NAME: expect.anything(), TEMPMAIL_DOMAINS: domains.join(','), POWERTOOLS_SERVICE_NAME: expect.any(String) }),
      );
    }
    for (const route of ROUTES) {
      expect(fns[functionId(route.name)].props.Timeout).toBe(route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS);
      template.hasResourceProperties('AWS::ApiGateway::Method', { HttpMethod: route.method, OperationName: route.name });
    }
  });

  it("scopes each function's IAM policy to exactly what its route's access list needs", () => {
    const fns = ourFunctions();
    for (const route of ROUTES) expect([route.name, actionsOf(fns[functionId(route.name)])]).toEqual([route.name, expectedActions(route.access)]);
    expect(actionsOf(fns.Authorizer)).toEqual(expectedActions(AUTHORIZER_ACCESS));
    expect(actionsOf(fns.Ingest)).toEqual(expect.arrayContaining(expectedActions(INGEST_ACCESS)));
    // Ingest also sends failures to its dead-letter queue, nothing else.
    expect(actionsOf(fns.Ingest).filter((a) => !a.startsWith('dynamodb:') && !a.startsWith('s3:'))).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    // For example: reading an inbox can neither write the table nor touch the bucket.
    const getInbox = actionsOf(fns.GetInboxFunction);
    expect(getInbox).not.toContain('dynamodb:PutItem');
    expect(getInbox.filter((a) => a.startsWith('s3:'))).toEqual([]);
    // No route may scan the table (only admin tooling lists keys).
    for (const fn of Object.values(fns)) expect(actionsOf(fn)).not.toContain('dynamodb:Scan');
  });

  it('maps access levels to IAM actions as stated once in lib/permissions.ts', () => {
    expect(TABLE_ACTIONS['table:read']).toEqual(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem']);
    expect(TABLE_ACTIONS['table:write']).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem']);
    expect(BUCKET_OBJECT_ACTIONS).toEqual({ 'bucket:read': ['s3:GetObject'], 'bucket:write': ['s3:PutObject'], 'bucket:delete': ['s3:DeleteObject'] });
    expect(actionsFor([])).toEqual({ table: [], objects: [], listBucket: false });
    expect(actionsFor(['bucket:write'])).toEqual({ table: [], objects: ['s3:PutObject'], listBucket: false });
    expect(actionsFor(['bucket:delete']).listBucket).toBe(true);
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
    for (const route of ROUTES) {
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        OperationName: route.name,
        AuthorizationType: route.auth ? 'CUSTOM' : 'NONE',
        ApiKeyRequired: route.auth ? true : Match.absent(),
      });
    }
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

  it('renders every gateway response in the error format, with Retry-After on the 429s', () => {
    for (const [type, { status, message }] of Object.entries(GATEWAY_RESPONSES)) {
      const throttled = type === 'THROTTLED' || type === 'QUOTA_EXCEEDED';
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: String(status),
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
  });

  it('answers every verb the route table does not define on a resource with a 405 mock in the error format', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method') as Record<string, Resource>).map((r) => r.Properties);
    const mocks = methods.filter((m) => m.Integration?.Type === 'MOCK');
    const paths = [...new Set(ROUTES.map((r) => r.path))];
    const expectedMocks = paths.reduce((n, p) => n + HTTP_METHODS.length - ROUTES.filter((r) => r.path === p).length, 0);
    expect(mocks).toHaveLength(expectedMocks);
    expect(methods).toHaveLength(ROUTES.length + expectedMocks);
    const allowedOnInbox = ROUTES.filter((r) => r.path === '/v1/inboxes/{inbox_id}').map((r) => r.method).join(', ');
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
    expect(preflights).toHaveLength(new Set(ROUTES.map((r) => r.path)).size);
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
    for (const route of ROUTES.filter((r) => VIEWER_HANDLERS.includes(r.handler))) {
      const key = String(fns[functionId(route.name)].props.Code.S3Key);
      const bundle = path.join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
      expect(fs.existsSync(path.join(bundle, 'index.js'))).toBe(true);
      expect(fs.readFileSync(path.join(bundle, 'viewer', 'index.html'), 'utf8')).toMatch(/<script type="module" src="viewer\/app-\w+\.js">/);
      expect(fs.readdirSync(path.join(bundle, 'viewer', 'assets')).sort()).toEqual([expect.stringMatching(/^app-\w+\.css$/), expect.stringMatching(/^app-\w+\.js$/)]);
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
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, any>[]) // eslint-disable-line @typescript-eslint/no-explicit-any
      .filter((s) => s.Principal?.Service === 'ses.amazonaws.com');
    expect(sesStatements).toHaveLength(1);
    expect(sesStatements[0].Action).toBe('s3:PutObject');
    expect(sesStatements[0].Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
    expect(JSON.stringify(sesStatements[0].Condition.ArnLike['aws:SourceArn'])).toContain(':receipt-rule-set/TempMail-receipt:receipt-rule/*');
    expect(JSON.stringify(sesStatements[0].Resource)).toContain('/inbound/*');
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

  it('does not activate the rule set unless asked, and has no DNS records without a hosted zone', () => {
    template.resourceCountIs('Custom::AWS', 0);
    template.resourceCountIs('AWS::Route53::RecordSet', 0);
  });

  it('with a hosted zone: three DKIM CNAMEs and an MX per domain; with the flag: activation, deactivated on delete', () => {
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
    const activation = Object.values(zoned.findResources('Custom::AWS') as Record<string, Resource>);
    expect(activation).toHaveLength(1);
    const create = JSON.stringify(activation[0].Properties.Create);
    const remove = JSON.stringify(activation[0].Properties.Delete);
    expect(create).toContain('setActiveReceiptRuleSet');
    expect(create).toContain('TempMail-receipt');
    expect(remove).toContain('setActiveReceiptRuleSet');
    expect(remove).not.toContain('RuleSetName');
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
