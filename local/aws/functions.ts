/**
 * Lambda for `npm run start:aws`: every AWS::Lambda::Function of the template, run from its cdk.out asset folder in
 * execution environments of its own (child processes running lambda-runtime.js), each with exactly the template's
 * Environment (intrinsics resolved to the local resources) plus the variables Lambda itself sets. As on AWS:
 * - an environment serves one invocation at a time and stays warm for the next; when all are busy another starts (a
 *   cold start), up to the function's reserved concurrency, past which the invocation is throttled
 *   (TooManyRequestsException); unreserved functions are capped at LOCAL_CONCURRENCY here and wait beyond it;
 * - past the function's Timeout the invocation fails (Sandbox.Timedout) and its process is killed; a crash or an
 *   uncaught error ends the environment too, and the next invocation gets a fresh one;
 * - MemorySize is enforced approximately: the V8 heap is capped at 90 % of it (--max-old-space-size), so a function
 *   that outgrows it fails with Runtime.OutOfMemory; off-heap memory (Buffers) is not counted as Lambda counts it;
 * - a synchronous answer over 6 MB fails (Function.ResponseSizeTooLarge), and so does a request over 6 MB;
 * - each invocation ends with Lambda's REPORT line: its duration, and the environment's peak resident memory (the
 *   process's maxRSS, as Lambda's Max Memory Used) beside MemorySize;
 * - asynchronous (Event) invocations are queued, retried per the function's EventInvokeConfig (1 min, then 2 min
 *   apart) and, once retries are exhausted, sent to its on-failure destination as Lambda's destination record.
 * The AWS SDK is not in the bundles (the runtime provides it on AWS): here it comes from this repository's
 * node_modules through NODE_PATH, so the SDK version differs from the runtime's own (docs/DEPLOY.md).
 * Each function gets its own access key id (accessKeyIdFor), so a proxy in front of the stand-ins can tell callers
 * apart and check each call against that function's IAM policies.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { searchPath } from '../../lambdas/config/process-env';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../lambdas/core/limits';
import { accessKeyIdFor } from './iam';
import type { LocalStackModel } from './template';
import { functionSpecs, type FunctionSpec } from './function-specs';

/** Concurrent environments of a function without reserved concurrency (a machine limit here, not AWS's). */
export const LOCAL_CONCURRENCY = 8;
/** Lambda's synchronous request limit, as for the response. */
const REQUEST_LIMIT_BYTES = LAMBDA_RESPONSE_LIMIT_BYTES;
/** How long Lambda waits before the first and the second retry of a failed asynchronous invocation. */
export const ASYNC_RETRY_DELAYS_MS = [60_000, 120_000];

/** Each function's own access key id (the IAM proxy tells callers apart by it), and a secret to go with it. */
export { accessKeyIdFor };
export const secretKeyFor = (logicalId: string): string => createHash('sha256').update(`secret:${logicalId}`).digest('base64').slice(0, 40);
/** What each function of the template is (function-specs.ts), for the callers of the runner. */
export { functionSpecs, type FunctionSpec };

export type InvokeOutcome =
  | { ok: true; payload: unknown; requestId: string }
  | { ok: false; requestId: string; errorType: string; errorMessage: string; trace?: string[]; throttled?: boolean };

/** Where the functions' AWS SDK calls go (the stand-ins, or the IAM proxy in front of them). */
export interface ServiceEndpoints {
  dynamodb: string;
  s3: string;
  sqs: string;
  /** Services answered in process (KMS, SES, …): AWS_ENDPOINT_URL_<SERVICE> for each. */
  others?: Record<string, string>;
}

interface Pending {
  id: string;
  startedMs: number;
  resolve: (outcome: InvokeOutcome) => void;
  timer: NodeJS.Timeout;
}

/** One execution environment: a child process that runs one invocation at a time. */
class Environment {
  readonly child: ChildProcess;
  pending?: Pending;
  dead = false;
  readonly ready: Promise<void>;

  constructor(
    private readonly spec: FunctionSpec,
    env: NodeJS.ProcessEnv,
    args: string[],
    log: (line: string) => void,
    onExit: (environment: Environment) => void,
  ) {
    const heap = Math.max(16, Math.floor(spec.memoryMb * 0.9));
    this.child = fork(path.join(__dirname, 'lambda-runtime.js'), args, {
      cwd: spec.codeDir,
      env,
      execArgv: [`--max-old-space-size=${heap}`],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      readline.createInterface({ input: stream }).on('line', (line) => log(`[λ ${spec.logicalId}] ${line}`));
    }
    this.ready = new Promise((resolve) => {
      const onMessage = (message: { type: string }) => {
        if (message.type === 'ready') {
          this.child.off('message', onMessage);
          resolve();
        }
      };
      this.child.on('message', onMessage);
      this.child.once('exit', () => resolve());
    });
    this.child.on('message', (message: { type: string; id: string; payload?: string; error?: { errorType: string; errorMessage: string; trace?: string[] }; fatal?: boolean; maxRssKb?: number }) => {
      const pending = this.pending;
      if (!pending || message.id !== pending.id) return;
      // Lambda's REPORT line: the environment's peak resident memory beside the function's MemorySize (bench:lambdas
      // and the memory figures read it).
      if (message.maxRssKb !== undefined) {
        log(`[λ ${spec.logicalId}] REPORT RequestId: ${pending.id} Duration: ${Date.now() - pending.startedMs} ms Memory Size: ${spec.memoryMb} MB Max Memory Used: ${Math.ceil(message.maxRssKb / 1024)} MB`);
      }
      if (message.type === 'result') this.settle({ ok: true, payload: JSON.parse(message.payload ?? 'null'), requestId: pending.id });
      else if (message.type === 'error') this.settle({ ok: false, requestId: pending.id, ...message.error! });
    });
    this.child.on('error', () => undefined);
    this.child.once('exit', (code, signal) => {
      this.dead = true;
      // Killed by us (timeout) the outcome is settled already; otherwise the environment died mid-invocation.
      const oom = code === 134 || signal === 'SIGABRT';
      this.settle({
        ok: false,
        requestId: this.pending?.id ?? '',
        errorType: oom ? 'Runtime.OutOfMemory' : 'Runtime.ExitError',
        errorMessage: oom
          ? `RequestId: ${this.pending?.id} Error: Runtime exited with error: signal: killed (out of memory: ${spec.memoryMb} MB)`
          : `RequestId: ${this.pending?.id} Error: Runtime exited with error: ${signal ? `signal: ${signal}` : `exit status ${code}`}`,
      });
      onExit(this);
    });
  }

  private settle(outcome: InvokeOutcome): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    pending.resolve(outcome);
  }

  invoke(event: unknown, requestId: string): Promise<InvokeOutcome> {
    return new Promise((resolve) => {
      const timeoutMs = this.spec.timeoutSeconds * 1000;
      const timer = setTimeout(() => {
        this.settle({ ok: false, requestId, errorType: 'Sandbox.Timedout', errorMessage: `RequestId: ${requestId} Error: Task timed out after ${this.spec.timeoutSeconds.toFixed(2)} seconds` });
        this.kill();
      }, timeoutMs);
      this.pending = { id: requestId, resolve, timer, startedMs: Date.now() };
      this.child.send({ type: 'invoke', id: requestId, event, requestId, deadlineMs: Date.now() + timeoutMs, invokedFunctionArn: this.spec.arn }, (error) => {
        if (error) this.settle({ ok: false, requestId, errorType: 'Runtime.ExitError', errorMessage: `the execution environment is gone: ${error.message}` });
      });
    });
  }

  kill(): void {
    this.dead = true;
    this.child.kill('SIGKILL');
  }
}

/** A function's environments and the invocations waiting for one. */
class FunctionPool {
  private readonly idle: Environment[] = [];
  private readonly all = new Set<Environment>();
  private readonly waiting: ((environment: Environment) => void)[] = [];
  private stopped = false;

  constructor(
    readonly spec: FunctionSpec,
    private readonly env: NodeJS.ProcessEnv,
    private readonly args: string[],
    private readonly log: (line: string) => void,
  ) {}

  private get limit(): number {
    return this.spec.reservedConcurrency ?? LOCAL_CONCURRENCY;
  }

  /** An idle environment, a new one, or (unreserved, at the local cap) the next one freed; null: throttled. */
  private async acquire(): Promise<Environment | null> {
    while (this.idle.length) {
      const environment = this.idle.pop()!;
      if (!environment.dead) return environment;
    }
    if (this.all.size < this.limit) {
      const environment = new Environment(this.spec, this.env, this.args, this.log, (e) => this.all.delete(e));
      this.all.add(environment);
      await environment.ready;
      return environment;
    }
    if (this.spec.reservedConcurrency !== undefined) return null;
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(environment: Environment): void {
    if (environment.dead || this.stopped) return;
    const next = this.waiting.shift();
    if (next) next(environment);
    else this.idle.push(environment);
  }

  async invoke(event: unknown, requestId: string): Promise<InvokeOutcome> {
    if (this.spec.reservedConcurrency === 0) return { ok: false, requestId, errorType: 'TooManyRequestsException', errorMessage: 'Rate Exceeded.', throttled: true };
    const environment = await this.acquire();
    if (!environment) return { ok: false, requestId, errorType: 'TooManyRequestsException', errorMessage: 'Rate Exceeded.', throttled: true };
    try {
      return await environment.invoke(event, requestId);
    } finally {
      this.release(environment);
      // A waiter whose environment died gets a fresh one.
      if (environment.dead && this.waiting.length && this.all.size < this.limit) {
        const next = this.waiting.shift()!;
        void this.acquire().then((e) => (e ? next(e) : undefined));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(
      [...this.all].map(
        (environment) =>
          new Promise<void>((resolve) => {
            if (environment.dead) return resolve();
            environment.child.once('exit', () => resolve());
            environment.kill();
          }),
      ),
    );
  }
}

export interface FunctionRunnerOptions {
  model: LocalStackModel;
  endpoints: ServiceEndpoints;
  log: (line: string) => void;
  /** Sends a destination record to a queue (the on-failure destination of asynchronous invocations). */
  sendToQueue?: (queueArn: string, body: string) => Promise<void>;
  /** Test only: the internet's stand-in (internet.js), its named hosts and the CA their certificates chain to. */
  internet?: InternetStandIn;
}

/** Named hosts of the internet, each served by a loopback target (TEMPMAIL_TEMPLATE_INTERNET). */
export interface InternetStandIn {
  hosts: Record<string, { host: string; port: number }>;
  /** A PEM file of CA certificates the functions trust besides the public ones (NODE_EXTRA_CA_CERTS). */
  caFile?: string;
}

export class FunctionRunner {
  readonly specs: FunctionSpec[];
  private readonly pools = new Map<string, FunctionPool>();
  private readonly asyncTimers = new Set<NodeJS.Timeout>();
  private readonly repoNodeModules = path.resolve(__dirname, '..', '..', 'node_modules');

  constructor(private readonly options: FunctionRunnerOptions) {
    this.specs = functionSpecs(options.model);
    const internet = options.internet;
    const args = internet ? [`--internet=${JSON.stringify(internet.hosts)}`] : [];
    for (const spec of this.specs) this.pools.set(spec.logicalId, new FunctionPool(spec, this.environmentOf(spec), args, options.log));
  }

  spec(logicalId: string): FunctionSpec {
    const pool = this.pools.get(logicalId);
    if (!pool) throw new Error(`no function ${logicalId} in the template`);
    return pool.spec;
  }

  /** What the process sees: Lambda's own variables, the local endpoints, then the template's Environment. */
  private environmentOf(spec: FunctionSpec): NodeJS.ProcessEnv {
    const { model, endpoints } = this.options;
    const others = Object.fromEntries(Object.entries(endpoints.others ?? {}).map(([service, url]) => [`AWS_ENDPOINT_URL_${service.toUpperCase()}`, url]));
    return {
      PATH: searchPath(),
      LANG: 'en_US.UTF-8',
      TZ: ':UTC',
      NODE_PATH: this.repoNodeModules,
      LAMBDA_TASK_ROOT: spec.codeDir,
      LAMBDA_RUNTIME_DIR: __dirname,
      _HANDLER: spec.handler,
      AWS_EXECUTION_ENV: `AWS_Lambda_${spec.runtime}`,
      AWS_REGION: model.region,
      AWS_DEFAULT_REGION: model.region,
      AWS_LAMBDA_FUNCTION_NAME: spec.name,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memoryMb),
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${spec.name}`,
      AWS_LAMBDA_LOG_STREAM_NAME: `local/[$LATEST]${randomUUID().replace(/-/g, '')}`,
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_ACCESS_KEY_ID: accessKeyIdFor(spec.logicalId),
      AWS_SECRET_ACCESS_KEY: secretKeyFor(spec.logicalId),
      AWS_SESSION_TOKEN: `local-session-${spec.logicalId}`,
      // Local only: where the SDK's calls go, and what the stand-ins need (the S3 server predates CRC checksums).
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
      AWS_ENDPOINT_URL_S3: endpoints.s3,
      AWS_ENDPOINT_URL_SQS: endpoints.sqs,
      ...others,
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      // Node here is not Lambda's Node 22; the SDK's end-of-support notice is noise. CloudWatch's embedded metrics
      // mean nothing on one machine.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_METRICS_DISABLED: 'true',
      // Test only (the internet's stand-in): the CA of its hosts' certificates, as a function may trust one on AWS.
      ...(this.options.internet?.caFile ? { NODE_EXTRA_CA_CERTS: this.options.internet.caFile } : {}),
      ...spec.environment,
    };
  }

  /** A synchronous (RequestResponse) invocation. */
  async invoke(logicalId: string, event: unknown, requestId: string = randomUUID()): Promise<InvokeOutcome> {
    const pool = this.pools.get(logicalId);
    if (!pool) throw new Error(`no function ${logicalId} in the template`);
    const size = Buffer.byteLength(JSON.stringify(event ?? null));
    if (size > REQUEST_LIMIT_BYTES) {
      return { ok: false, requestId, errorType: 'RequestEntityTooLargeException', errorMessage: `${size} byte payload is too large for the RequestResponse invocation type (limit ${REQUEST_LIMIT_BYTES} bytes)` };
    }
    const outcome = await pool.invoke(event, requestId);
    if (outcome.ok) {
      const bytes = Buffer.byteLength(JSON.stringify(outcome.payload ?? null));
      if (bytes > LAMBDA_RESPONSE_LIMIT_BYTES) {
        this.options.log(`[lambda] ${pool.spec.logicalId} request ${requestId} failed: Function.ResponseSizeTooLarge (${bytes} bytes)`);
        return { ok: false, requestId, errorType: 'Function.ResponseSizeTooLarge', errorMessage: `Response payload size (${bytes} bytes) exceeded maximum allowed payload size (${LAMBDA_RESPONSE_LIMIT_BYTES} bytes).` };
      }
    } else {
      this.options.log(`[lambda] ${pool.spec.logicalId} request ${requestId} failed: ${outcome.errorType}: ${outcome.errorMessage}`);
    }
    return outcome;
  }

  /**
   * An asynchronous (Event) invocation: accepted at once; run, retried after a failure as the function's
   * EventInvokeConfig says, throttles retried until the event's maximum age, and the last failure sent to the
   * on-failure destination. `done` resolves with the final outcome (for tests and shutdown).
   */
  invokeAsync(logicalId: string, event: unknown): { requestId: string; done: Promise<InvokeOutcome> } {
    const spec = this.spec(logicalId);
    const requestId = randomUUID();
    const accepted = Date.now();
    const done = (async (): Promise<InvokeOutcome> => {
      let attempt = 0;
      for (;;) {
        const outcome = await this.invoke(logicalId, event, requestId);
        if (outcome.ok) return outcome;
        const expired = Date.now() - accepted > spec.async.maxEventAgeSeconds * 1000;
        if (outcome.throttled && !expired) {
          await this.sleep(1_000);
          continue;
        }
        if (attempt >= spec.async.maxRetries || expired) {
          await this.deadLetter(spec, event, outcome, attempt + 1);
          return outcome;
        }
        await this.sleep(ASYNC_RETRY_DELAYS_MS[Math.min(attempt, ASYNC_RETRY_DELAYS_MS.length - 1)]);
        attempt++;
      }
    })();
    return { requestId, done };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.asyncTimers.delete(timer);
        resolve();
      }, ms);
      this.asyncTimers.add(timer);
    });
  }

  private async deadLetter(spec: FunctionSpec, event: unknown, outcome: Extract<InvokeOutcome, { ok: false }>, attempts: number): Promise<void> {
    if (!spec.async.onFailure || !this.options.sendToQueue) {
      this.options.log(`[lambda] ${spec.logicalId}: asynchronous invocation ${outcome.requestId} failed ${attempts} times and is dropped (no on-failure destination)`);
      return;
    }
    const record = {
      version: '1.0',
      timestamp: new Date().toISOString(),
      requestContext: { requestId: outcome.requestId, functionArn: `${spec.arn}:$LATEST`, condition: 'RetriesExhausted', approximateInvokeCount: attempts },
      requestPayload: event,
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: outcome.errorType, errorMessage: outcome.errorMessage, trace: outcome.trace ?? [] },
    };
    await this.options.sendToQueue(spec.async.onFailure, JSON.stringify(record));
  }

  async stop(): Promise<void> {
    for (const timer of this.asyncTimers) clearTimeout(timer);
    await Promise.all([...this.pools.values()].map((pool) => pool.stop()));
  }
}
