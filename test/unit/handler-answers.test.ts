/**
 * A handler's answer is checked against its route's response schema when compiling (lambdas/http/api-handler.ts,
 * AnswerJson): `npm run typecheck` fails on an answer the contract does not allow. Each `@ts-expect-error` below is
 * such an answer (tsc fails if one of them compiles); the test then runs the handlers that do compile.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { apiHandler } from '../../lambdas/http/api-handler';
import { CONTRACT } from '../../lambdas/contract/contract';
import { installContext } from '../../lambdas/app/current';
import type { AppContext } from '../../lambdas/usecases/context';

const event = { requestContext: { requestId: 'req-1', authorizer: { accountId: 'acct', plan: 'dev' } }, pathParameters: { inbox_id: 'inb_x', webhook_id: 'whk_x' }, queryStringParameters: null, body: null } as unknown as APIGatewayProxyEvent;
const context = { functionName: 'test', awsRequestId: 'x', getRemainingTimeInMillis: () => 60_000 } as unknown as Context;

// Answers the contract allows.
const deleted = apiHandler(CONTRACT.deleteInbox, async () => ({ status: 200, json: { deleted: true as const } }));
const domains = apiHandler(CONTRACT.listDomains, async () => ({ status: 200, json: { domains: ['inbox.test'] } }));

// Answers it does not.
// @ts-expect-error a Deleted answer is {deleted: true}, not a boolean
apiHandler(CONTRACT.deleteWebhook, async () => ({ status: 200, json: { deleted: false } }));
// @ts-expect-error the domain list is strings
apiHandler(CONTRACT.listDomains, async () => ({ status: 200, json: { domains: [1] } }));
// @ts-expect-error an inbox needs its fields, not an id alone
apiHandler(CONTRACT.getInbox, async () => ({ status: 200, json: { id: 'inb_x' } }));

describe('handler answers checked against the contract', () => {
  beforeAll(() => installContext({ settings: { corsOrigin: '*' } } as unknown as AppContext));
  afterAll(() => installContext(undefined));

  it('the answers that compile are served as they are', async () => {
    expect(JSON.parse((await deleted(event, context)).body)).toEqual({ deleted: true });
    expect(JSON.parse((await domains(event, context)).body)).toEqual({ domains: ['inbox.test'] });
  });
});
