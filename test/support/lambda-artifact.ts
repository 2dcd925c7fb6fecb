/**
 * A function as AWS runs it, from a synthesized cloud assembly (cdk.out): its asset folder (found through the
 * assets manifest by the template's S3Key), its Handler resolved as the Node.js runtime resolves it (module file
 * before the first dot, tried as .js, .mjs, .cjs; the export path after it), loaded in a process of its own with
 * exactly the template's Environment plus what the runtime itself sets, and called as handler(event, context) with a
 * Lambda-shaped context. The SDK is not in the bundles (lib/bundling.ts EXTERNAL_MODULES): the runtime provides it on
 * NODE_PATH, here the repository's node_modules does. Past the template's Timeout the invocation fails as on AWS.
 *
 * Tests of the source cannot see what this sees: a handler signature Lambda does not call that way, a bundle that
 * needs a module it does not carry, an environment variable the template does not set.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Json } from './json';

const ROOT = path.resolve(__dirname, '..', '..');

export interface FunctionArtifact {
  logicalId: string;
  assetDir: string;
  handler: string;
  /** The template's Environment.Variables; each must be a plain string (intrinsics are resolved by the caller). */
  environment: Record<string, unknown>;
  timeoutSeconds: number;
  memorySize: number;
}

type TemplateJson = { Resources: Record<string, { Type: string; Properties: Record<string, Json> }> };

/** The function whose logical id matches, from the stack's template and assets manifest in `outdir`. */
export function functionArtifact(outdir: string, stackName: string, logicalId: RegExp): FunctionArtifact {
  const template = JSON.parse(fs.readFileSync(path.join(outdir, `${stackName}.template.json`), 'utf8')) as TemplateJson;
  const matches = Object.entries(template.Resources).filter(([id, r]) => r.Type === 'AWS::Lambda::Function' && logicalId.test(id));
  if (matches.length !== 1) throw new Error(`${matches.length} functions match ${logicalId}: ${matches.map(([id]) => id).join(', ')}`);
  const [id, { Properties: props }] = matches[0];
  const manifest = JSON.parse(fs.readFileSync(path.join(outdir, `${stackName}.assets.json`), 'utf8')) as { files: Record<string, { source: { path: string } }> };
  const hash = String(props.Code.S3Key).replace(/\.zip$/, '');
  const asset = manifest.files[hash];
  if (!asset) throw new Error(`${id}: no asset ${hash} in the assets manifest`);
  return {
    logicalId: id,
    assetDir: path.join(outdir, asset.source.path),
    handler: props.Handler,
    environment: props.Environment?.Variables ?? {},
    timeoutSeconds: props.Timeout ?? 3,
    memorySize: props.MemorySize ?? 128,
  };
}

export type Invocation = { result: unknown } | { error: { errorType: string; errorMessage: string } };

/** Runs in the function's process: the Node.js runtime's handler resolution and call, the outcome over IPC. */
const RUNTIME = `
const fs = require('node:fs');
const path = require('node:path');
const { handler, event, context } = JSON.parse(process.argv[1]);
const fail = (errorType, errorMessage) => process.send({ error: { errorType, errorMessage } }, () => process.exit(0));
(async () => {
  const taskRoot = process.env.LAMBDA_TASK_ROOT;
  const dot = handler.indexOf('.');
  if (dot < 1) return fail('Runtime.MalformedHandlerName', 'Bad handler ' + handler);
  const moduleName = handler.slice(0, dot);
  const file = ['.js', '.mjs', '.cjs'].map((ext) => path.join(taskRoot, moduleName + ext)).find((f) => fs.existsSync(f));
  if (!file) return fail('Runtime.ImportModuleError', 'Error: Cannot find module ' + moduleName);
  let target;
  try {
    target = file.endsWith('.mjs') ? await import(file) : require(file);
  } catch (e) {
    return fail('Runtime.ImportModuleError', String(e && e.message));
  }
  for (const part of handler.slice(dot + 1).split('.')) target = target == null ? undefined : target[part];
  if (typeof target !== 'function') return fail('Runtime.HandlerNotFound', handler + ' is undefined or not exported');
  const deadline = Date.now() + context.timeoutMs;
  const ctx = {
    ...context,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done() {}, succeed() {}, fail() {},
  };
  try {
    const result = await target(event, ctx);
    process.send({ result: result === undefined ? null : result }, () => process.exit(0));
  } catch (e) {
    fail((e && e.name) || 'Error', String(e && e.message));
  }
})();
`;

/**
 * Invokes the function once in a fresh process. `env` adds what the machine needs to reach its stand-ins (region,
 * credentials, AWS_ENDPOINT_URL_*) and the resolved values of the template's intrinsic variables.
 */
export function invokeArtifact(fn: FunctionArtifact, event: unknown, env: Record<string, string>): Promise<Invocation & { logs: string }> {
  const templateEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.environment)) {
    if (typeof value === 'string') templateEnv[name] = value;
    else if (env[name] === undefined) throw new Error(`${fn.logicalId}: environment ${name} is ${JSON.stringify(value)}; pass its resolved value`);
  }
  const functionName = fn.logicalId;
  const context = {
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${env.AWS_REGION ?? 'us-east-1'}:000000000000:function:${functionName}`,
    memoryLimitInMB: String(fn.memorySize),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    timeoutMs: fn.timeoutSeconds * 1000,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${fn.memorySize}`, '-e', RUNTIME, JSON.stringify({ handler: fn.handler, event, context })], {
      cwd: fn.assetDir,
      // Exactly the template's environment, what the runtime sets, and the machine's way to AWS: nothing of ours.
      env: {
        PATH: process.env.PATH,
        NODE_PATH: path.join(ROOT, 'node_modules'),
        LAMBDA_TASK_ROOT: fn.assetDir,
        AWS_LAMBDA_FUNCTION_NAME: functionName,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        ...templateEnv,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let logs = '';
    let outcome: Invocation | undefined;
    child.stdout!.on('data', (d) => (logs += d));
    child.stderr!.on('data', (d) => (logs += d));
    child.on('message', (m) => (outcome = m as Invocation));
    const timer = setTimeout(() => {
      outcome = { error: { errorType: 'Sandbox.Timedout', errorMessage: `Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds` } };
      child.kill('SIGKILL');
    }, fn.timeoutSeconds * 1000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ ...(outcome ?? { error: { errorType: 'Runtime.ExitError', errorMessage: `exited with ${signal ?? code} before answering` } }), logs });
    });
  });
}
