/**
 * API Gateway REST API built from the route table: one function per route, a REQUEST authorizer on X-API-Key, one
 * usage plan per paid plan from the plan table, and every gateway response rendered in the API's error format.
 */
import { Annotations, Duration, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { AUTHORIZER_CACHE_SECONDS, GATEWAY_RESPONSES, THROTTLE_RETRY_AFTER_SECONDS, type GatewayResponseType } from '../lambdas/contract/gateway-responses';
import { BASE_PLANS, burstOf, PAID_PLANS, ratePerSecond, type PlanName } from '../lambdas/core/plans';
import { DEFAULT_CORS_ORIGIN, parseCorsOrigin } from '../lambdas/contract/cors';
import { API_GATEWAY_TIMEOUT_SECONDS, MAX_ROUTE_TIMEOUT_SECONDS } from '../lambdas/core/limits';
import { HTTP_METHODS, STAGE_NAME } from '../lambdas/contract/routes';
import { AUTHORIZER_ACCESS, AUTHORIZER_HANDLER, VIEWER_HANDLERS, DEPLOYED_ROUTES } from '../lambdas/layout/functions';
import { gatewayCorsHeaders, preflightMethod } from './cors';
import { handlerFunction, type WebhookResources } from './functions';
import { acknowledgeNag } from './nag';
import { enableCompression, viewerBundling } from './viewer';
import { re2Bundling } from './re2-asset';

/**
 * The stage's default throttle, for every method and all callers together (API Gateway answers 429 past it, in the
 * API's error format). Usage plans throttle each key, but only once the authorizer has found the key: a request
 * with an unknown key is answered by the authorizer itself, and API Gateway does not cache that "Unauthorized"
 * (keys never seen are unbounded, so no cache could hold them anyway). This throttle is what bounds the
 * authorizer's invocations: at most `rateLimit` a second, `burstLimit` at once, about `burstLimit` concurrent
 * executions at the worst (a burst of cold starts), which Lambda's unreserved pool (at least 100, usually 900 and
 * more) takes. Sized for 30,000 requests a minute in all: 30 enterprise keys at their plan's full rate.
 */
export const STAGE_THROTTLE = { rateLimit: 500, burstLimit: 250 } as const;
/**
 * Each keyless method (the viewer's page and files, the OpenAPI document), all callers together: no key, so no usage
 * plan limits them, and each request runs a function. A page view of the viewer is a handful of requests.
 */
export const KEYLESS_ROUTE_THROTTLE = { rateLimit: 50, burstLimit: 100 } as const;

/** A stage method-settings path (`/<resource path>/<METHOD>`; the root resource is `//GET`). */
export const methodSettingsPath = (route: { path: string; method: string }): string => `${route.path}/${route.method}`;

export interface ApiProps {
  table: dynamodb.ITableV2;
  bucket: s3.IBucket;
  domains: string[];
  logRetention?: logs.RetentionDays;
  /**
   * Reserved concurrency of the authorizer (0: none; a reservation is also a ceiling: keep it above the stage's
   * burst, STAGE_THROTTLE), and the cap of each long-poll route's function (0: none).
   */
  concurrency: { authorizer: number; longPoll: number };
  /** The webhook routes seal secrets and queue test deliveries. */
  webhooks?: WebhookResources;
  /** Access-Control-Allow-Origin of every answer: `*` (default) or one origin. */
  corsOrigin?: string;
  /** The mail checks' DNS servers (TEMPMAIL_CHECK_DNS of the checks function alone); default: Lambda's resolver. */
  checkDns?: readonly string[];
}

/** The API's error body, as API Gateway itself must render it (the handlers render the same shape). */
export const errorBody = (status: number, message: string): string => JSON.stringify({ error: { code: status, message } });
export { HTTP_METHODS };
/** Function construct ids from route names: createInbox → CreateInboxFunction. */
export const functionId = (routeName: string): string => `${routeName[0].toUpperCase()}${routeName.slice(1)}Function`;
export { STAGE_NAME };

export class Api extends Construct {
  readonly restApi: apigw.RestApi;
  readonly functions: Record<string, lambda.IFunction> = {};
  readonly authorizerFunction: lambda.IFunction;
  readonly usagePlans: Partial<Record<PlanName, apigw.UsagePlan>> = {};

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: props.logRetention ?? logs.RetentionDays.THREE_MONTHS });
    for (const route of DEPLOYED_ROUTES) {
      if ((route.timeoutSeconds ?? 0) > MAX_ROUTE_TIMEOUT_SECONDS) {
        throw new Error(`route ${route.name}: timeout ${route.timeoutSeconds} s; at most ${MAX_ROUTE_TIMEOUT_SECONDS} s, under API Gateway's ${API_GATEWAY_TIMEOUT_SECONDS} s`);
      }
    }
    this.restApi = new apigw.RestApi(this, 'RestApi', {
      restApiName: `${Stack.of(this).stackName}-api`,
      description: 'TempMail: disposable inboxes',
      apiKeySourceType: apigw.ApiKeySourceType.AUTHORIZER,
      cloudWatchRole: true,
      deployOptions: {
        stageName: STAGE_NAME,
        accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
        // No API key or other header in the access log: only the request line, status and ids.
        accessLogFormat: apigw.AccessLogFormat.jsonWithStandardFields({
          caller: false, httpMethod: true, ip: true, protocol: true, requestTime: true, resourcePath: true,
          responseLength: true, status: true, user: false,
        }),
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        // No X-Ray: the functions are not traced either, and a stage-only trace shows nothing the access log lacks.
        tracingEnabled: false,
        throttlingRateLimit: STAGE_THROTTLE.rateLimit,
        throttlingBurstLimit: STAGE_THROTTLE.burstLimit,
        methodOptions: Object.fromEntries(
          DEPLOYED_ROUTES.filter((route) => !route.auth).map((route) => [
            methodSettingsPath(route),
            { throttlingRateLimit: KEYLESS_ROUTE_THROTTLE.rateLimit, throttlingBurstLimit: KEYLESS_ROUTE_THROTTLE.burstLimit },
          ]),
        ),
      },
    });
    // API Gateway writes execution logs to a group of this name and would create it without a retention; made here
    // first, it has one.
    const executionLogs = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.restApi.restApiId}/${STAGE_NAME}`,
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    });
    this.restApi.deploymentStage.node.addDependency(executionLogs);

    enableCompression(this.restApi);
    const corsOrigin = props.corsOrigin ?? DEFAULT_CORS_ORIGIN;
    if (!parseCorsOrigin(corsOrigin)) throw new Error(`corsOrigin must be * or one origin such as https://viewer.example.com, not "${corsOrigin}"`);

    acknowledgeNag(this.restApi, 'AwsSolutions-APIG2');
    acknowledgeNag(this.restApi, 'AwsSolutions-COG4');
    acknowledgeNag(this.restApi, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]');
    acknowledgeNag(this.restApi.deploymentStage, 'AwsSolutions-APIG3');

    // No reservation by default: a reservation is also a ceiling, and a flood of unknown keys that reached it made
    // every caller whose cached answer had expired fail with 500. The stage throttle bounds the authorizer instead
    // (STAGE_THROTTLE), and the long polls, which could otherwise take the unreserved pool, have their own cap.
    if (props.concurrency.authorizer > 0 && props.concurrency.authorizer < STAGE_THROTTLE.burstLimit) {
      Annotations.of(this).addWarningV2(
        'tempmail:authorizer-concurrency',
        `the authorizer's reserved concurrency (${props.concurrency.authorizer}) is below the stage's burst (${STAGE_THROTTLE.burstLimit}): a flood of unknown keys can reach it before the stage throttles, and key checks then fail with 500`,
      );
    }
    const authorizerFn = handlerFunction(this, 'Authorizer', {
      handler: AUTHORIZER_HANDLER,
      access: AUTHORIZER_ACCESS,
      ...props,
      service: 'authorizer',
      reservedConcurrency: props.concurrency.authorizer,
    });
    this.authorizerFunction = authorizerFn;
    const authorizer = new apigw.RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: authorizerFn,
      identitySources: [apigw.IdentitySource.header('X-API-Key')],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_SECONDS),
    });

    const byPath = new Map<string, Set<string>>();
    for (const route of DEPLOYED_ROUTES) {
      const fn = handlerFunction(this, functionId(route.name), {
        handler: route.handler,
        access: route.access,
        timeoutSeconds: route.timeoutSeconds,
        ...props,
        service: route.name,
        // A long poll holds its execution for up to MAX_WAIT_SECONDS: capped, so that one busy key cannot take the
        // account's whole concurrency; past the cap API Gateway answers 5xx and the client retries.
        reservedConcurrency: route.longPoll ? props.concurrency.longPoll : undefined,
        ...(VIEWER_HANDLERS.includes(route.handler) ? { bundling: viewerBundling() } : route.re2 ? { bundling: re2Bundling() } : {}),
      });
      this.functions[route.name] = fn;
      if (route.name === 'getMessageChecks' && props.checkDns?.length) fn.addEnvironment('TEMPMAIL_CHECK_DNS', props.checkDns.join(','));
      const resource = this.restApi.root.resourceForPath(route.path);
      // allowTestInvoke off: one invoke permission per method (this stage), not a second one for console tests.
      const method = resource.addMethod(route.method, new apigw.LambdaIntegration(fn, { allowTestInvoke: false }), {
        operationName: route.name,
        ...(route.auth ? { authorizer, authorizationType: apigw.AuthorizationType.CUSTOM, apiKeyRequired: true } : {}),
      });
      if (!route.auth) acknowledgeNag(method, 'AwsSolutions-APIG4');
      (byPath.get(route.path) ?? byPath.set(route.path, new Set()).get(route.path)!).add(route.method);
    }

    // DESIGN: a wrong method is 405 in the error format (OPTIONS excepted: the CORS preflight, lib/cors.ts). API Gateway would answer 403 (rendered as our 404), so the
    // other verbs of each resource are mock integrations that answer 405 themselves. The integration response has no
    // selection pattern, so it is the default and answers whatever the mock's status.
    for (const [path, methods] of byPath) {
      const allowed = [...methods].join(', ');
      const body = errorBody(405, `method not allowed; allowed: ${allowed}`);
      for (const method of HTTP_METHODS.filter((m) => !methods.has(m))) {
        if (method === 'OPTIONS') {
          acknowledgeNag(preflightMethod(this.restApi.root.resourceForPath(path), [...methods], corsOrigin), 'AwsSolutions-APIG4');
          continue;
        }
        const mock = this.restApi.root.resourceForPath(path).addMethod(
          method,
          new apigw.MockIntegration({
            requestTemplates: { 'application/json': '{"statusCode": 405}' },
            integrationResponses: [{ statusCode: '405', responseTemplates: { 'application/json': body }, responseParameters: { 'method.response.header.Allow': `'${allowed}'` } }],
          }),
          { methodResponses: [{ statusCode: '405', responseParameters: { 'method.response.header.Allow': true } }] },
        );
        acknowledgeNag(mock, 'AwsSolutions-APIG4');
      }
    }

    for (const [type, response] of Object.entries(GATEWAY_RESPONSES) as [GatewayResponseType, (typeof GATEWAY_RESPONSES)[GatewayResponseType]][]) {
      const throttled = type === 'THROTTLED' || type === 'QUOTA_EXCEEDED';
      this.restApi.addGatewayResponse(`Response${type}`, {
        type: apigw.ResponseType.of(type),
        // The catch-alls keep the status API Gateway chose (502 from a failed function, 504 …).
        statusCode: response.keepStatus ? undefined : String(response.status),
        templates: { 'application/json': errorBody(response.status, response.message) },
        // Header values may only be static or request parameters here, so no X-Request-Id: API Gateway sends its
        // own x-amzn-RequestId on these answers.
        responseHeaders: {
          'Content-Type': "'application/json'",
          ...gatewayCorsHeaders(corsOrigin),
          ...(throttled ? { 'Retry-After': `'${THROTTLE_RETRY_AFTER_SECONDS}'` } : {}),
        },
      });
    }

    for (const plan of PAID_PLANS) {
      this.usagePlans[plan] = this.restApi.addUsagePlan(`UsagePlan-${plan}`, {
        name: `${Stack.of(this).stackName}-${plan}`,
        description: `TempMail ${plan} plan: ${BASE_PLANS[plan].requests_per_minute} requests per minute`,
        throttle: { rateLimit: ratePerSecond(BASE_PLANS[plan]), burstLimit: burstOf(BASE_PLANS[plan]) },
        apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
      });
    }
  }
}
