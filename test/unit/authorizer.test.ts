/**
 * The REQUEST authorizer's answers, as API Gateway reads them. An unknown key is "Unauthorized" (API Gateway's 401,
 * not cached) on purpose: a Deny policy would be cached for AUTHORIZER_CACHE_SECONDS, but API Gateway answers a Deny
 * with its ACCESS_DENIED response, whose status is fixed at 403, and the API documents 401 for an invalid key.
 * Random keys defeat any cache anyway; the stage throttle bounds them (lib/api.ts STAGE_THROTTLE).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { handler } from '../../lambdas/api/authorizer';
import { appConfig } from '../../lambdas/config/app-config';
import { newApiKey } from '../../lambdas/core/ids';
import { appContext } from '../../lambdas/app/context';
import { installContext } from '../../lambdas/app/current';
import type { AppContext } from '../../lambdas/usecases/context';
import { issueKey } from '../../lambdas/usecases/keys';

let ctx: AppContext;
let dataDir: string;
const methodArn = 'arn:aws:execute-api:us-east-1:123456789012:abc123/prod/GET/v1/inboxes';
const event = (key?: string) => ({ type: 'REQUEST', methodArn, headers: key === undefined ? {} : { 'X-API-Key': key } }) as unknown as APIGatewayRequestAuthorizerEvent;

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-authorizer-'));
  ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
  installContext(ctx);
});
afterAll(async () => {
  installContext(undefined);
  await ctx.stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('the authorizer', () => {
  it('answers an unknown or revoked key with "Unauthorized", the one error API Gateway turns into its 401', async () => {
    await expect(handler(event(newApiKey()))).rejects.toThrow(/^Unauthorized$/);
    await expect(handler(event())).rejects.toThrow(/^Unauthorized$/);
  });

  it('allows a valid key on every route of the stage (the answer is cached per key), naming its account and plan', async () => {
    const issued = await issueKey(ctx, 'dev');
    const answer = await handler(event(issued.key));
    expect(answer.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*' }]);
    expect(answer.context).toEqual({ accountId: issued.record.account_id, plan: 'dev' });
  });

  it('denies a plan without API access with a policy (cached: 403 ACCESS_DENIED)', async () => {
    const issued = await issueKey(ctx, 'free');
    const answer = await handler(event(issued.key));
    expect(answer.policyDocument.Statement).toEqual([expect.objectContaining({ Effect: 'Deny', Resource: 'arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*' })]);
  });
});
