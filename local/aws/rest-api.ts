/**
 * The REST API the template form's gateway serves (local/aws/api-gateway.ts), read from the template's
 * AWS::ApiGateway::* resources alone: the one REST API and its one stage (method throttles), the resource tree and
 * its methods (AWS_PROXY integrations to the template's functions, MOCK integrations), the REQUEST authorizers, the
 * gateway responses the template defines and the usage plans covering the stage. Read once at start; what a
 * request does with it is the gateway's.
 */
import type { Dict } from './cfn-json';
import type { LocalStackModel } from './template';
import { methodSettingPath, throttleOf, type Quota, type StageThrottle, type Throttle } from './throttles';

/** API Gateway's REST integration timeout, and its request payload limit. */
export const INTEGRATION_TIMEOUT_MS = 29_000;
export const REQUEST_LIMIT_BYTES = 10 * 1024 * 1024;

export interface MethodModel {
  logicalId: string;
  httpMethod: string;
  authorizationType: string;
  authorizerId?: string;
  apiKeyRequired: boolean;
  integration: { type: 'AWS_PROXY'; functionLogicalId: string; timeoutMs: number } | { type: 'MOCK'; requestTemplates: Dict; responses: Dict[] } | { type: 'UNSUPPORTED'; description: string };
}

export interface ResourceNode {
  path: string;
  part: string;
  children: ResourceNode[];
  methods: Map<string, MethodModel>;
}

export interface AuthorizerModel {
  id: string;
  type: string;
  functionLogicalId: string;
  identitySources: string[];
  ttlSeconds: number;
}

export interface GatewayResponseModel {
  status?: number;
  templates: Dict;
  headers: Record<string, string>;
}

export interface UsagePlanModel {
  id: string;
  throttle?: Throttle;
  quota?: Quota;
  /** "resourcePath/METHOD" → throttle, for this API's stage. */
  methodThrottles: Map<string, Throttle>;
  /** Covers this API's stage. */
  coversStage: boolean;
}

export interface RestApiModel {
  restApiLogicalId: string;
  restApiId: string;
  stageName: string;
  root: ResourceNode;
  keySource: 'HEADER' | 'AUTHORIZER';
  binaryMediaTypes: string[];
  minimumCompressionSize?: number;
  /** By the id a method names (the authorizer's Ref). */
  authorizers: Map<string, AuthorizerModel>;
  /** By response type (UNAUTHORIZED, DEFAULT_4XX, …). */
  responses: Map<string, GatewayResponseModel>;
  usagePlans: UsagePlanModel[];
  stageThrottles: StageThrottle[];
}

/** The template's one REST API; `authorizerCacheSeconds` overrides each authorizer's result TTL. */
export function readRestApi(model: LocalStackModel, authorizerCacheSeconds?: number): RestApiModel {
  const apis = model.resources('AWS::ApiGateway::RestApi');
  if (apis.length !== 1) throw new Error(`the template has ${apis.length} REST APIs; the local gateway serves exactly one`);
  const [apiId, api] = apis[0];
  const restApiId = String(model.ref(apiId));
  const apiProps = (model.resolve(api.Properties ?? {}) ?? {}) as Dict;

  const stages = model.resources('AWS::ApiGateway::Stage').filter(([, r]) => JSON.stringify(r.Properties?.RestApiId) === JSON.stringify({ Ref: apiId }));
  if (stages.length !== 1) throw new Error(`the REST API ${apiId} has ${stages.length} stages; the local gateway serves exactly one`);
  const stage = model.resolve(stages[0][1].Properties ?? {}) as Dict;
  const stageName = String(stage.StageName);
  const stageThrottles: StageThrottle[] = [];
  for (const setting of (stage.MethodSettings ?? []) as Dict[]) {
    const throttle = throttleOf({ RateLimit: setting.ThrottlingRateLimit, BurstLimit: setting.ThrottlingBurstLimit });
    if (!throttle) continue;
    stageThrottles.push({ resourcePath: methodSettingPath(String(setting.ResourcePath ?? '/*')), method: String(setting.HttpMethod ?? '*'), throttle });
  }

  // The resource tree: the root, then each AWS::ApiGateway::Resource under its parent.
  const rootId = String(model.getAtt(apiId, 'RootResourceId'));
  const root: ResourceNode = { path: '/', part: '', children: [], methods: new Map() };
  const nodes = new Map<string, ResourceNode>([[rootId, root]]);
  const pending = model.resources('AWS::ApiGateway::Resource').map(([id, r]) => ({ id, props: model.resolve(r.Properties ?? {}) as Dict }));
  while (pending.length) {
    const i = pending.findIndex((p) => nodes.has(String(p.props.ParentId)));
    if (i < 0) throw new Error(`API resources without a parent in the template: ${pending.map((p) => p.id).join(', ')}`);
    const [{ id, props }] = pending.splice(i, 1);
    const parent = nodes.get(String(props.ParentId))!;
    const node: ResourceNode = { path: `${parent.path === '/' ? '' : parent.path}/${props.PathPart}`, part: String(props.PathPart), children: [], methods: new Map() };
    parent.children.push(node);
    nodes.set(String(model.ref(id)), node);
  }

  const authorizers = new Map<string, AuthorizerModel>();
  for (const [id, r] of model.resources('AWS::ApiGateway::Authorizer')) {
    const p = model.resolve(r.Properties ?? {}) as Dict;
    authorizers.set(String(model.ref(id)), {
      id,
      type: String(p.Type),
      functionLogicalId: functionOfUri(model, String(p.AuthorizerUri)),
      identitySources: String(p.IdentitySource ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      ttlSeconds: authorizerCacheSeconds ?? Number(p.AuthorizerResultTtlInSeconds ?? 300),
    });
  }

  for (const [id, r] of model.resources('AWS::ApiGateway::Method')) {
    const p = model.resolve(r.Properties ?? {}) as Dict;
    const node = nodes.get(String(p.ResourceId));
    if (!node) throw new Error(`method ${id} is on a resource the template does not define`);
    const integration = (p.Integration ?? {}) as Dict;
    let modelIntegration: MethodModel['integration'];
    if (integration.Type === 'AWS_PROXY') {
      modelIntegration = { type: 'AWS_PROXY', functionLogicalId: functionOfUri(model, String(integration.Uri)), timeoutMs: Number(integration.TimeoutInMillis ?? INTEGRATION_TIMEOUT_MS) };
    } else if (integration.Type === 'MOCK') {
      modelIntegration = { type: 'MOCK', requestTemplates: integration.RequestTemplates ?? {}, responses: integration.IntegrationResponses ?? [] };
    } else {
      modelIntegration = { type: 'UNSUPPORTED', description: `integration type ${integration.Type}` };
    }
    node.methods.set(String(p.HttpMethod).toUpperCase(), {
      logicalId: id,
      httpMethod: String(p.HttpMethod).toUpperCase(),
      authorizationType: String(p.AuthorizationType ?? 'NONE'),
      authorizerId: p.AuthorizerId === undefined ? undefined : String(p.AuthorizerId),
      apiKeyRequired: p.ApiKeyRequired === true || p.ApiKeyRequired === 'true',
      integration: modelIntegration,
    });
  }

  const responses = new Map<string, GatewayResponseModel>();
  for (const [, r] of model.resources('AWS::ApiGateway::GatewayResponse')) {
    const p = model.resolve(r.Properties ?? {}) as Dict;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries((p.ResponseParameters ?? {}) as Record<string, string>)) {
      const header = name.replace(/^gatewayresponse\.header\./, '');
      headers[header] = String(value).replace(/^'(.*)'$/s, '$1');
    }
    responses.set(String(p.ResponseType), { status: p.StatusCode === undefined ? undefined : Number(p.StatusCode), templates: p.ResponseTemplates ?? {}, headers });
  }

  const usagePlans: UsagePlanModel[] = [];
  for (const [id, r] of model.resources('AWS::ApiGateway::UsagePlan')) {
    const p = model.resolve(r.Properties ?? {}) as Dict;
    const stageOfApi = ((p.ApiStages ?? []) as Dict[]).find((s) => String(s.ApiId) === restApiId && String(s.Stage) === stageName);
    const methodThrottles = new Map<string, Throttle>();
    for (const [key, t] of Object.entries((stageOfApi?.Throttle ?? {}) as Record<string, Dict>)) {
      const throttle = throttleOf(t);
      if (throttle) methodThrottles.set(key, throttle);
    }
    usagePlans.push({
      id: String(model.ref(id)),
      throttle: throttleOf(p.Throttle),
      quota: p.Quota?.Limit !== undefined ? { limit: Number(p.Quota.Limit), period: p.Quota.Period, offset: Number(p.Quota.Offset ?? 0) } : undefined,
      methodThrottles,
      coversStage: Boolean(stageOfApi),
    });
  }

  return {
    restApiLogicalId: apiId,
    restApiId,
    stageName,
    root,
    keySource: apiProps.ApiKeySourceType === 'AUTHORIZER' ? 'AUTHORIZER' : 'HEADER',
    binaryMediaTypes: (apiProps.BinaryMediaTypes ?? []).map((t: string) => t.replace('~1', '/')),
    minimumCompressionSize: apiProps.MinimumCompressionSize === undefined ? undefined : Number(apiProps.MinimumCompressionSize),
    authorizers,
    responses,
    usagePlans,
    stageThrottles,
  };
}

/** arn:aws:apigateway:region:lambda:path/2015-03-31/functions/<function arn>/invocations → the function's logical id. */
function functionOfUri(model: LocalStackModel, uri: string): string {
  const match = /functions\/(.+)\/invocations$/.exec(uri);
  const fn = match ? model.functionByArn(match[1]) : undefined;
  if (!fn) throw new Error(`integration URI ${uri} names no function of the template`);
  return fn;
}

/** The resource whose path template matches, with the path parameters. */
export function matchResource(root: ResourceNode, path: string): { node: ResourceNode; params: Record<string, string> } | undefined {
  const segments = path.split('/').filter(Boolean);
  const walk = (node: ResourceNode, i: number, params: Record<string, string>): { node: ResourceNode; params: Record<string, string> } | undefined => {
    if (i === segments.length) return { node, params };
    const segment = segments[i];
    const exact = node.children.find((c) => c.part === segment);
    if (exact) {
      const found = walk(exact, i + 1, params);
      if (found) return found;
    }
    for (const child of node.children) {
      const param = /^\{(.+?)(\+)?\}$/.exec(child.part);
      if (!param) continue;
      if (param[2]) return { node: child, params: { ...params, [param[1]]: segments.slice(i).map(decodeURIComponent).join('/') } };
      const found = walk(child, i + 1, { ...params, [param[1]]: decodeURIComponent(segment) });
      if (found) return found;
    }
    return undefined;
  };
  return walk(root, 0, {});
}

/** The binary media types cover this Content-Type (or Accept type). */
export function isBinaryType(binaryMediaTypes: readonly string[], contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0].trim().toLowerCase();
  return binaryMediaTypes.some((t) => t === '*/*' || t.toLowerCase() === type || (t.endsWith('/*') && type.startsWith(t.slice(0, -1).toLowerCase())));
}
