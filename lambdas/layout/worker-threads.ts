/**
 * The local stack's worker threads (the mail parser's, lambdas/ingest/parse-thread.ts; the embedded store's JSON
 * reader, lambdas/store/json-read-thread.ts), stated once: where a thread's script is, and how its jobs run.
 * - The script: in the npm package, its compiled file beside the bundle (scripts/build-package.ts writes it to bin/,
 *   the bundle's __dirname); in a clone, the TypeScript module through tsx's require hook, as the stack itself runs.
 * - Jobs: one thread, started at the first job, runs them all, each answered by id. A thread that fails or exits
 *   fails the jobs in flight, and the next job starts a new one. An idle thread keeps no process alive.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** A new worker running `module` (a .ts file's path) or, in the package, `bundled` beside the caller's bundle. */
export function startWorker(callerDir: string, module: string, bundled: string, name: string): Worker {
  const compiled = path.join(callerDir, bundled);
  if (fs.existsSync(compiled)) return new Worker(compiled, { name });
  const boot = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(module)});`;
  return new Worker(boot, { eval: true, name });
}

interface Job<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/**
 * Jobs run on one worker thread. `start` makes the thread; `answer` turns a reply (with the job's `id`) into the job's
 * value, or the Error it fails with; `what` names the thread in errors ("the parser thread").
 */
export class JobThread<Reply extends { id: number }, T> {
  private worker?: Worker;
  private readonly jobs = new Map<number, Job<T>>();
  private lastId = 0;

  constructor(
    private readonly start: () => Worker,
    private readonly answer: (reply: Reply) => T | Error,
    private readonly what: string,
  ) {}

  /**
   * Posts the job's message (made from its id) and resolves with its answer. With `budgetMs`, a thread that has not
   * answered by then is ended: stuck in synchronous work its own timers cannot interrupt, only that stops it.
   */
  run(message: (id: number) => unknown, budgetMs?: number): Promise<T> {
    const worker = this.running();
    const id = ++this.lastId;
    return new Promise<T>((resolve, reject) => {
      const timer =
        budgetMs === undefined
          ? undefined
          : setTimeout(() => {
              if (this.worker === worker) this.worker = undefined;
              this.failAll(new Error(`${this.what} took longer than ${budgetMs} ms`));
              void worker.terminate();
            }, budgetMs);
      this.jobs.set(id, { resolve, reject, timer });
      worker.ref();
      worker.postMessage(message(id));
    });
  }

  /** Ends the thread, if one runs; the jobs in flight fail with `reason`. */
  async close(reason: string): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error(reason));
    await worker?.terminate();
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = this.start();
    worker.on('message', (reply: Reply) => this.settle(reply));
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => this.lost(worker, new Error(`${this.what} exited (${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settle(reply: Reply): void {
    const job = this.jobs.get(reply.id);
    if (!job) return;
    this.finish(reply.id, job);
    const value = this.answer(reply);
    if (value instanceof Error) job.reject(value);
    else job.resolve(value);
  }

  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.failAll(error);
  }

  /** Fails the jobs in flight (all of them: one thread runs them all). */
  private failAll(error: Error): void {
    for (const [id, job] of this.jobs) {
      this.finish(id, job);
      job.reject(error);
    }
  }

  private finish(id: number, job: Job<T>): void {
    clearTimeout(job.timer);
    this.jobs.delete(id);
    if (this.jobs.size === 0) this.worker?.unref();
  }
}
