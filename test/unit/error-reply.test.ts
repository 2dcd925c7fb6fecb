/**
 * The API's one error renderer (lambdas/contract/error-reply.ts), and the API handlers' adapter answering through it.
 * The local gateway's own answers (local/gateway.ts) call the same function; test/integration/api.test.ts and
 * test/reliability/faults.test.ts check them on a live stack.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { ApiError, DependencyUnavailable, notFound } from '../../lambdas/core/errors';
import { errorReply } from '../../lambdas/contract/error-reply';
import { apiHandler } from '../../lambdas/http/api-handler';
import { logger } from '../../lambdas/app/logger';
import { installContext } from '../../lambdas/app/current';
import type { AppContext } from '../../lambdas/usecases/context';

const body = (text: string) => JSON.parse(text) as { error: { code: number; message: string } };

describe('errorReply', () => {
  it('renders an ApiError as it says, with its headers, and asks for no log line', () => {
    const reply = errorReply(new ApiError(429, 'slow down', { 'Retry-After': '3' }), 'req-1');
    expect(reply).toMatchObject({ status: 429, log: 'none' });
    expect(body(reply.body)).toEqual({ error: { code: 429, message: 'slow down' } });
    expect(reply.headers).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Request-Id': 'req-1',
      'Retry-After': '3',
    });
  });

  it('renders a dependency that is down as 503 naming it, also when the error comes from another bundle\'s class', () => {
    const own = errorReply(new DependencyUnavailable('dynamodb'), 'req-2');
    // A handler bundle carries its own copy of the class: the local gateway sees the authorizer's by name only.
    const foreign = Object.assign(new Error('dynamodb is unavailable'), { name: 'DependencyUnavailable', dependency: 'dynamodb' });
    for (const reply of [own, errorReply(foreign, 'req-2')]) {
      expect(reply).toMatchObject({ status: 503, log: 'warn', dependency: 'dynamodb' });
      expect(reply.headers['Retry-After']).toBe('1');
      expect(body(reply.body).error).toEqual({ code: 503, message: 'service temporarily unavailable (dynamodb); retry shortly. request id req-2' });
    }
  });

  it('renders anything else as 500 naming only the request id', () => {
    const reply = errorReply(new Error('secret detail of the failure'), 'req-3');
    expect(reply).toMatchObject({ status: 500, log: 'error' });
    expect(body(reply.body).error).toEqual({ code: 500, message: 'internal error; request id req-3' });
    expect(reply.body).not.toContain('secret detail');
  });
});

describe('the API handlers\' adapter', () => {
  const event = (requestId: string) =>
    ({ requestContext: { requestId, authorizer: { accountId: 'acct', plan: 'dev' } }, pathParameters: null, queryStringParameters: null, body: null }) as unknown as APIGatewayProxyEvent;
  const context = { functionName: 'test', awsRequestId: 'x', getRemainingTimeInMillis: () => 60_000 } as unknown as Context;

  // The adapter hands each run the installed context; this one only has what the adapter itself reads (CORS). Without
  // one, the adapter would build a context from this process's environment, which names no store (a 500 of its own).
  beforeAll(() => installContext({ settings: { corsOrigin: '*' } } as unknown as AppContext));
  afterAll(() => installContext(undefined));
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['an ApiError', notFound('no such inbox')],
    ['a dependency down', new DependencyUnavailable('s3')],
    ['an unexpected failure', new TypeError('x is undefined')],
  ])('answers %s exactly as errorReply renders it, with the CORS headers', async (_, error) => {
    const logged = { warn: jest.spyOn(logger, 'warn').mockImplementation(), error: jest.spyOn(logger, 'error').mockImplementation() };
    const handler = apiHandler({}, async () => {
      throw error;
    });
    const answer = await handler(event('req-4'), context);
    const expected = errorReply(error, 'req-4');
    expect(answer.statusCode).toBe(expected.status);
    expect(answer.body).toBe(expected.body);
    expect(answer.headers).toMatchObject({ ...expected.headers, 'Access-Control-Allow-Origin': '*' });
    // Logged as the renderer asks: a caller's mistake not at all, a dependency as a warning, anything else an error.
    expect([logged.warn.mock.calls.length, logged.error.mock.calls.length]).toEqual({ none: [0, 0], warn: [1, 0], error: [0, 1] }[expected.log]);
  });
});
