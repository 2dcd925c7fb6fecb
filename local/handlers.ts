/**
 * Loads Lambda handler modules: the TypeScript sources by default, or the esbuild bundles that deploy
 * (TEMPMAIL_BUNDLE_DIR), so the same tests can run against what ships.
 */
import path from 'node:path';
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** A handler module's export as the gateway calls it: the caller knows the event it passes and the result it reads. */
export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

const cache = new Map<string, LambdaHandler>();

/**
 * Handlers linked into the same bundle as the stack (the npm package, scripts/build-package.ts), where there are no
 * handler files to load: loadHandler answers from here unless a bundle folder is named.
 */
const linked = new Map<string, LambdaHandler>();
export function linkHandlers(handlers: Record<string, LambdaHandler>): void {
  for (const [modulePath, handler] of Object.entries(handlers)) linked.set(modulePath, handler);
}

export function loadHandler(modulePath: string, bundleDir?: string): LambdaHandler {
  let handler = (bundleDir ? undefined : linked.get(modulePath)) ?? cache.get(modulePath);
  if (!handler) {
    const file = bundleDir ? path.join(bundleDir, `${modulePath}.js`) : path.join(__dirname, '..', 'lambdas', modulePath);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a handler module chosen at run time by its path (sources or bundles)
    const loaded = require(file) as { handler?: LambdaHandler };
    if (typeof loaded.handler !== 'function') throw new Error(`${file} exports no handler`);
    handler = loaded.handler;
    cache.set(modulePath, handler);
  }
  return handler;
}

/** The Lambda context object a handler receives; enough for Powertools and middy. */
export function lambdaContext(functionName: string, requestId: string = randomUUID(), timeoutMs = 30_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
