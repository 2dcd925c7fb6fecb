/**
 * The REQUEST authorizer as the template form's API Gateway runs it (local/aws/api-gateway.ts): its identity sources
 * (an absent one is 401 without a call while results are cached), its result cached by them for the TTL, the
 * function's resource policy checked before it is invoked, and the IAM-style policy it returns evaluated against the
 * method ARN. Each refusal is the gateway response API Gateway gives for it.
 */
import { createHash } from 'node:crypto';
import type { Dict } from './cfn-json';
import type { FunctionRunner } from './functions';
import type { InvokePermissions } from './invoke-permissions';
import type { AuthorizerModel } from './rest-api';

export const API_GATEWAY_PRINCIPAL = 'apigateway.amazonaws.com';

/** What the authorizer decided: the context and usage key it returned, or the gateway response to answer with. */
export type Authorization = { allowed: true; context: Dict; usageIdentifierKey?: string } | { allowed: false; response: string };

export interface AuthorizerRequest {
  authorizerId?: string;
  methodArn: string;
  /** The authorizer's own ARN prefix: `arn:aws:execute-api:<region>:<account>:<api>`. */
  apiArn: string;
  header: (name: string) => string | undefined;
  query: Record<string, string>;
  /** The REQUEST event, built only when the function is called. */
  event: () => Dict;
}

export class RequestAuthorizers {
  private readonly cache = new Map<string, { result: Dict; until: number }>();

  constructor(
    private readonly authorizers: ReadonlyMap<string, AuthorizerModel>,
    private readonly functions: FunctionRunner,
    private readonly permissions: InvokePermissions,
    private readonly log: (line: string) => void,
  ) {}

  async authorize(request: AuthorizerRequest): Promise<Authorization> {
    const refuse = (response: string): Authorization => ({ allowed: false, response });
    const authorizer = request.authorizerId ? this.authorizers.get(request.authorizerId) : undefined;
    if (!authorizer || authorizer.type !== 'REQUEST') return refuse('AUTHORIZER_CONFIGURATION_ERROR');
    const identity = authorizer.identitySources.map((source) => {
      const h = /^method\.request\.header\.(.+)$/.exec(source);
      const q = /^method\.request\.querystring\.(.+)$/.exec(source);
      return h ? request.header(h[1]) : q ? request.query[q[1]] : undefined;
    });
    if (authorizer.ttlSeconds > 0 && identity.some((v) => v === undefined || v === '')) return refuse('UNAUTHORIZED');
    const cacheKey = `${authorizer.id}\0${createHash('sha256').update(identity.join('\0')).digest('hex')}`;
    const cached = authorizer.ttlSeconds > 0 ? this.cache.get(cacheKey) : undefined;
    let result: Dict;
    if (cached && cached.until > Date.now()) result = cached.result;
    else {
      const refused = this.permissions.refusal(authorizer.functionLogicalId, {
        principal: API_GATEWAY_PRINCIPAL,
        sourceArn: `${request.apiArn}/authorizers/${request.authorizerId}`,
      });
      if (refused) {
        this.log(`[api] Execution failed due to configuration error: Invalid permissions on Lambda function: ${refused}`);
        return refuse('AUTHORIZER_CONFIGURATION_ERROR');
      }
      const outcome = await this.functions.invoke(authorizer.functionLogicalId, request.event());
      if (!outcome.ok) {
        if (outcome.errorMessage === 'Unauthorized') return refuse('UNAUTHORIZED');
        // API Gateway's execution log says why a key check became 500 (a throttle, a timeout, a crash).
        this.log(`[api] Execution failed due to configuration error: Authorizer error: ${outcome.errorType}: ${outcome.errorMessage}`);
        return refuse(outcome.throttled ? 'AUTHORIZER_FAILURE' : 'AUTHORIZER_CONFIGURATION_ERROR');
      }
      result = (outcome.payload ?? {}) as Dict;
      if (typeof result.principalId !== 'string' || !result.policyDocument?.Statement) return refuse('AUTHORIZER_CONFIGURATION_ERROR');
      if (authorizer.ttlSeconds > 0) this.cache.set(cacheKey, { result, until: Date.now() + authorizer.ttlSeconds * 1000 });
    }
    if (!policyAllows(result.policyDocument, request.methodArn)) return refuse('ACCESS_DENIED');
    return {
      allowed: true,
      context: { ...(result.context ?? {}), principalId: result.principalId },
      usageIdentifierKey: typeof result.usageIdentifierKey === 'string' ? result.usageIdentifierKey : undefined,
    };
  }
}

const wildcard = (pattern: string): RegExp => new RegExp(`^${pattern.split('*').map((p) => p.split('?').map(escape).join('.')).join('.*')}$`);
const escape = (s: string) => s.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** An IAM-style policy (the authorizer's) allows execute-api:Invoke on the method ARN: an Allow matches, no Deny does. */
export function policyAllows(policy: Dict, methodArn: string): boolean {
  const statements = (Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement]) as Dict[];
  const matches = (s: Dict) => {
    const actions = ([] as string[]).concat(s.Action ?? []);
    const resources = ([] as string[]).concat(s.Resource ?? []);
    return actions.some((a) => wildcard(a.toLowerCase()).test('execute-api:invoke')) && resources.some((r) => wildcard(r).test(methodArn));
  };
  if (statements.some((s) => s.Effect === 'Deny' && matches(s))) return false;
  return statements.some((s) => s.Effect === 'Allow' && matches(s));
}
