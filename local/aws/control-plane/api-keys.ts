/**
 * API Gateway's key and usage-plan operations in the control-plane stand-in (local/aws/control-plane/), REST-JSON:
 * CreateApiKey, GetApiKeys, GetApiKey, UpdateApiKey (patch /enabled, /name, /description), DeleteApiKey,
 * GetUsagePlans, GetUsagePlan, CreateUsagePlanKey, GetUsagePlanKeys, GetUsagePlanKey, DeleteUsagePlanKey. Key values
 * are unique, as on AWS; deleting a key removes it from its usage plans; a key may not be in two plans that cover
 * the same API stage.
 */
import { randomBytes } from 'node:crypto';
import { ServiceError, type ApiKeyState, type Check, type ControlPlaneState } from './state';

const apiKeyJson = (k: ApiKeyState, withValue: boolean) => ({
  id: k.id,
  name: k.name,
  description: k.description,
  enabled: k.enabled,
  createdDate: k.createdDate.getTime() / 1000,
  lastUpdatedDate: k.lastUpdatedDate.getTime() / 1000,
  stageKeys: [],
  ...(withValue ? { value: k.value } : {}),
});
const planKeyJson = (k: ApiKeyState) => ({ id: k.id, type: 'API_KEY', name: k.name, value: k.value });
const needKey = (apiKeys: ControlPlaneState['apiKeys'], id: string) => {
  const key = apiKeys.get(id);
  if (!key) throw new ServiceError(404, 'NotFoundException', 'Invalid API Key identifier specified');
  return key;
};
const needPlan = (plans: ControlPlaneState['plans'], id: string) => {
  const plan = plans.get(id);
  if (!plan) throw new ServiceError(404, 'NotFoundException', 'Invalid Usage Plan ID specified');
  return plan;
};
const newId = () => randomBytes(5).toString('hex');

export async function apiGateway(state: ControlPlaneState, check: Check, method: string, url: URL, body: string, accessKeyId?: string): Promise<{ status: number; json?: unknown }> {
  const { region, apiKeys, plans, planKeys } = state;
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const route = `${method} /${parts.map((p, i) => (i % 2 === 1 ? '{}' : p)).join('/')}`;
  const operations: Record<string, string> = {
    'POST /apikeys': 'CreateApiKey',
    'GET /apikeys': 'GetApiKeys',
    'GET /apikeys/{}': 'GetApiKey',
    'PATCH /apikeys/{}': 'UpdateApiKey',
    'DELETE /apikeys/{}': 'DeleteApiKey',
    'GET /usageplans': 'GetUsagePlans',
    'GET /usageplans/{}': 'GetUsagePlan',
    'POST /usageplans/{}/keys': 'CreateUsagePlanKey',
    'GET /usageplans/{}/keys': 'GetUsagePlanKeys',
    'GET /usageplans/{}/keys/{}': 'GetUsagePlanKey',
    'DELETE /usageplans/{}/keys/{}': 'DeleteUsagePlanKey',
  };
  const operation = operations[route];
  if (!operation) throw new ServiceError(404, 'NotFoundException', `${method} ${url.pathname} is not answered by this stand-in`);
  // API Gateway's IAM actions are the HTTP method; the resource is the path (arn:aws:apigateway:region::/apikeys/id).
  await check({ service: 'apigateway', action: `apigateway:${method}`, operation, resource: `arn:aws:apigateway:${region}::${url.pathname}`, accessKeyId });
  const input = body ? (JSON.parse(body) as Record<string, unknown>) : {};
  const [, id, , sub] = parts;
  switch (operation) {
    case 'CreateApiKey': {
      const value = typeof input.value === 'string' && input.value ? input.value : randomBytes(20).toString('base64url');
      if (value.length < 20) throw new ServiceError(400, 'BadRequestException', 'API Key value should be at least 20 characters');
      if ([...apiKeys.values()].some((k) => k.value === value)) throw new ServiceError(409, 'ConflictException', 'API Key already exists');
      const now = new Date();
      const key: ApiKeyState = {
        id: newId(),
        name: typeof input.name === 'string' ? input.name : '',
        description: typeof input.description === 'string' ? input.description : undefined,
        value,
        enabled: input.enabled === true,
        createdDate: now,
        lastUpdatedDate: now,
      };
      apiKeys.set(key.id, key);
      return { status: 201, json: apiKeyJson(key, true) };
    }
    case 'GetApiKeys': {
      const nameQuery = url.searchParams.get('name');
      const withValues = url.searchParams.get('includeValues') === 'true';
      const items = [...apiKeys.values()].filter((k) => !nameQuery || k.name.startsWith(nameQuery));
      return { status: 200, json: { item: items.map((k) => apiKeyJson(k, withValues)) } };
    }
    case 'GetApiKey':
      return { status: 200, json: apiKeyJson(needKey(apiKeys, id), url.searchParams.get('includeValue') === 'true') };
    case 'UpdateApiKey': {
      const key = needKey(apiKeys, id);
      for (const op of (input.patchOperations ?? []) as { op: string; path: string; value?: string }[]) {
        if (op.op !== 'replace') throw new ServiceError(400, 'BadRequestException', `Invalid patch operation specified. Must be 'replace'`);
        if (op.path === '/enabled') key.enabled = op.value === 'true';
        else if (op.path === '/name') key.name = op.value ?? '';
        else if (op.path === '/description') key.description = op.value;
        else throw new ServiceError(400, 'BadRequestException', `Invalid patch path ${op.path}`);
      }
      key.lastUpdatedDate = new Date();
      return { status: 200, json: apiKeyJson(key, false) };
    }
    case 'DeleteApiKey':
      needKey(apiKeys, id);
      apiKeys.delete(id);
      for (const keys of planKeys.values()) keys.delete(id);
      return { status: 202 };
    case 'GetUsagePlans': {
      const keyFilter = url.searchParams.get('keyId');
      const items = [...plans.values()].filter((p) => !keyFilter || planKeys.get(p.id)!.has(keyFilter));
      return { status: 200, json: { item: items } };
    }
    case 'GetUsagePlan':
      return { status: 200, json: needPlan(plans, id) };
    case 'CreateUsagePlanKey': {
      const plan = needPlan(plans, id);
      if (input.keyType !== 'API_KEY') throw new ServiceError(400, 'BadRequestException', 'Invalid key type specified');
      const key = needKey(apiKeys, String(input.keyId));
      const members = planKeys.get(plan.id)!;
      if (members.has(key.id)) throw new ServiceError(409, 'ConflictException', `Usage Plan ${plan.id} already has API Key ${key.id}`);
      // As on AWS: a key may not be in two plans that cover the same API stage.
      const stages = new Set((plan.apiStages ?? []).map((s) => `${s.apiId}/${s.stage}`));
      for (const [otherId, otherKeys] of planKeys) {
        if (otherId !== plan.id && otherKeys.has(key.id) && (plans.get(otherId)!.apiStages ?? []).some((s) => stages.has(`${s.apiId}/${s.stage}`)))
          throw new ServiceError(409, 'ConflictException', `API Key ${key.id} cannot reference multiple Usage Plans with the same API Stage`);
      }
      members.add(key.id);
      return { status: 201, json: planKeyJson(key) };
    }
    case 'GetUsagePlanKeys':
      needPlan(plans, id);
      return { status: 200, json: { item: [...planKeys.get(id)!].map((k) => planKeyJson(apiKeys.get(k)!)) } };
    case 'GetUsagePlanKey': {
      needPlan(plans, id);
      if (!planKeys.get(id)!.has(sub)) throw new ServiceError(404, 'NotFoundException', 'Invalid Usage Plan Key identifier specified');
      return { status: 200, json: planKeyJson(needKey(apiKeys, sub)) };
    }
    default: {
      // DeleteUsagePlanKey
      needPlan(plans, id);
      if (!planKeys.get(id)!.delete(sub)) throw new ServiceError(404, 'NotFoundException', 'Invalid Usage Plan Key identifier specified');
      return { status: 202 };
    }
  }
}
