/**
 * The API of the template: the authorizer, throttling, usage plans, gateway responses, 405 mocks and CORS
 * preflights, the viewer's bundles, logs and tracing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { errorBody, functionId, HTTP_METHODS, KEYLESS_ROUTE_THROTTLE, STAGE_THROTTLE } from '../../../lib/api';
import { DEFAULT_CONCURRENCY } from '../../../lib/tempmail-service';
import { AUTHORIZER_CACHE_SECONDS, GATEWAY_RESPONSES, THROTTLE_RETRY_AFTER_SECONDS } from '../../../lambdas/contract/gateway-responses';
import { BASE_PLANS, burstOf, PAID_PLANS, PLAN_NAMES, ratePerSecond } from '../../../lambdas/core/plans';
import { VIEWER_HANDLERS, DEPLOYED_ROUTES } from '../../../lambdas/layout/functions';
import { COMPRESSION_MIN_BYTES } from '../../../lambdas/contract/gateway-responses';
import { outdir, ourFunctions, template, type Resource } from './fixture';

export function apiTests(): void {
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
}
