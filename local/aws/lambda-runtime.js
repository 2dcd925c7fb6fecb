/**
 * The Lambda Node.js runtime of `npm run start:aws`: one function's execution environment, in a process of its own,
 * forked by local/aws/functions.ts with exactly the environment the template gives the function (plus what Lambda
 * itself sets). Plain JavaScript with no loader, so that nothing but Node and the function's cdk.out bundle runs
 * here, as on AWS (TypeScript hooks would change module resolution the bundle sees).
 *
 * As Lambda's runtime interface client does: the handler string `path/file.export.nested` is resolved at start (the
 * init phase) against LAMBDA_TASK_ROOT, trying .js, .mjs and .cjs; an import failure or a missing export is reported
 * as Runtime.ImportModuleError / Runtime.HandlerNotFound on every invocation. Each invocation calls
 * `handler(event, context)` (or with a callback, for handlers that take three arguments) with a Lambda-shaped
 * context, and reports the result or the error (errorType, errorMessage, trace) over IPC. An error thrown outside
 * an invocation, or a rejection nobody handles, ends the process, as it ends the execution environment on AWS.
 * A test may give start:aws named hosts for the internet (TEMPMAIL_TEMPLATE_INTERNET): they arrive as the argument
 * `--internet=<json>`, not in the function's environment, and internet.js is installed before the bundle loads.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const taskRoot = process.env.LAMBDA_TASK_ROOT;
const internetArgument = process.argv.find((a) => a.startsWith('--internet='));
if (internetArgument) require('./internet').install(JSON.parse(internetArgument.slice('--internet='.length)));
const handlerString = process.env._HANDLER;

function errorPayload(error, fallbackType) {
  const e = error instanceof Error ? error : new Error(String(error));
  return {
    errorType: (e && e.name && e.name !== 'Error' ? e.name : fallbackType) || 'Error',
    errorMessage: e.message,
    trace: String(e.stack || '').split('\n'),
  };
}

class ImportModuleError extends Error {
  constructor(message) {
    super(message);
    this.name = 'Runtime.ImportModuleError';
  }
}
class HandlerNotFound extends Error {
  constructor(message) {
    super(message);
    this.name = 'Runtime.HandlerNotFound';
  }
}

async function loadHandler() {
  const base = path.basename(handlerString);
  const moduleRoot = handlerString.slice(0, handlerString.length - base.length);
  const match = /^([^.]*)\.(.*)$/.exec(base);
  if (!match) throw new HandlerNotFound(`Bad handler ${handlerString}`);
  const [, moduleName, handlerPath] = match;
  const stem = path.resolve(taskRoot, moduleRoot, moduleName);
  const file = ['.js', '.mjs', '.cjs'].map((ext) => stem + ext).find((f) => fs.existsSync(f));
  if (!file) throw new ImportModuleError(`Error: Cannot find module '${moduleName}'`);
  let loaded;
  try {
    loaded = file.endsWith('.mjs') ? await import(pathToFileURL(file).href) : require(file);
  } catch (error) {
    if (error && error.code === 'MODULE_NOT_FOUND') throw new ImportModuleError(`Error: ${error.message.split('\n')[0]}`);
    throw error;
  }
  let handler = loaded;
  for (const part of handlerPath.split('.')) handler = handler == null ? undefined : handler[part];
  if (handler === undefined) throw new HandlerNotFound(`${base} is undefined or not exported`);
  if (typeof handler !== 'function') throw new HandlerNotFound(`${base} is not a function`);
  return handler;
}

const initialized = loadHandler().then(
  (handler) => ({ handler }),
  (error) => ({ error: errorPayload(error, 'Runtime.UserCodeSyntaxError') }),
);

let current; // the invocation under way: at most one, as in an execution environment

function contextFor(invoke) {
  const ctx = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: invoke.invokedFunctionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: invoke.requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    identity: undefined,
    clientContext: undefined,
    getRemainingTimeInMillis: () => Math.max(0, invoke.deadlineMs - Date.now()),
  };
  ctx.succeed = (result) => finish(invoke.id, { result });
  ctx.fail = (error) => finish(invoke.id, { error: errorPayload(error) });
  ctx.done = (error, result) => (error ? ctx.fail(error) : ctx.succeed(result));
  return ctx;
}

function finish(id, outcome) {
  if (!current || current.id !== id) return; // answered already (a callback and a promise both)
  current = undefined;
  // The environment's peak resident memory so far (Lambda's REPORT line: Max Memory Used), in kB.
  const maxRssKb = process.resourceUsage().maxRSS;
  if (outcome.error) process.send({ type: 'error', id, error: outcome.error, maxRssKb });
  else {
    let payload;
    try {
      payload = outcome.result === undefined ? 'null' : JSON.stringify(outcome.result);
    } catch (error) {
      return process.send({ type: 'error', id, error: errorPayload(error, 'Runtime.MalformedResponse'), maxRssKb });
    }
    process.send({ type: 'result', id, payload, maxRssKb });
  }
}

process.on('message', async (message) => {
  if (message.type !== 'invoke') return;
  const init = await initialized;
  current = { id: message.id };
  if (init.error) return finish(message.id, { error: init.error });
  const context = contextFor(message);
  try {
    const callback = (error, result) => finish(message.id, error ? { error: errorPayload(error) } : { result });
    const returned = init.handler.length >= 3 ? init.handler(message.event, context, callback) : init.handler(message.event, context);
    if (returned && typeof returned.then === 'function') finish(message.id, { result: await returned });
    else if (init.handler.length < 3) finish(message.id, { result: returned });
  } catch (error) {
    finish(message.id, { error: errorPayload(error) });
  }
});

const fatal = (kind) => (error) => {
  const payload = errorPayload(error, kind);
  if (current) process.send({ type: 'error', id: current.id, error: payload, fatal: true });
  console.error(`${kind}: ${payload.errorMessage}`);
  // Let IPC flush, then end the environment as Lambda does.
  setTimeout(() => process.exit(1), 20);
};
process.on('uncaughtException', fatal('Runtime.UncaughtException'));
process.on('unhandledRejection', fatal('Runtime.UnhandledPromiseRejection'));
process.on('disconnect', () => process.exit(0));
// Ctrl-C and a stop reach the whole process group: the parent decides when an environment ends (it kills it, or
// disconnects), so that a stop runs the custom resources' Delete on live environments.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);

initialized.then((init) => process.send({ type: 'ready', error: init.error }));
