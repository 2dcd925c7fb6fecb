/**
 * API Gateway REQUEST authorizer on X-API-Key. Unknown key: "Unauthorized" (401). Plan without API access: a Deny
 * policy (403). Otherwise Allow for every route of the stage (the answer is cached per key, so it must fit any route),
 * with the account and plan in the context and the key's SHA-256 as the usage-plan identifier: API Gateway stores
 * API key values readably (get-api-key --include-value), so the value it holds is the hash, as in the table.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ApiError, DependencyUnavailable } from '../core/errors';
import { hashApiKey } from '../core/ids';
import { currentContext } from '../app/current';
import { authorizeKey } from '../usecases/keys';
import { logger } from '../app/logger';

export function headerValue(headers: Record<string, string | undefined> | null | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** arn:aws:execute-api:region:account:api/stage/METHOD/path → arn:…:api/stage/*: valid for every route. */
export const stageWildcard = (methodArn: string): string => methodArn.split('/').slice(0, 2).join('/') + '/*';

export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const key = headerValue(event.headers, 'x-api-key');
  try {
    const caller = await authorizeKey(currentContext(), key);
    return {
      principalId: caller.account_id,
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageWildcard(event.methodArn) }] },
      context: { accountId: caller.account_id, plan: caller.plan },
      usageIdentifierKey: hashApiKey(key!),
    };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) throw new Error('Unauthorized'); // API Gateway's 401
    if (error instanceof ApiError && error.status === 403) {
      return {
        principalId: 'denied',
        policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: stageWildcard(event.methodArn) }] },
        context: { message: error.message },
      };
    }
    if (error instanceof DependencyUnavailable) logger.warn('authorizer: dependency unavailable', { dependency: error.dependency });
    else logger.error('authorizer failed', { error: error as Error });
    throw error;
  }
};
