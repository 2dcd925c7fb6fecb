/**
 * The embedded store's JSON reader for objects kept in files (BlobStore.getJson): a message's body object can be
 * 40 MB of JSON, and reading it back as a string and parsing it held the local stack's one event loop, which serves
 * the API and every SMTP session, about 1.2 s for four parallel GETs of a 38 MB message (issue 27 item 2). The file
 * is read and parsed on a worker thread (json-read-worker.ts), which sends back the object with its strings cut to
 * what the caller asked for. The thread starts at the first such read and keeps no process alive while idle.
 */
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { CutJson } from '../core/ports';
import { startWorker } from '../layout/worker-threads';
import type { JsonReadReply, JsonReadRequest } from './json-read-worker';

/** The compiled worker beside the npm package's bundle (scripts/build-package.ts), whose __dirname is its bin/. */
export const JSON_READ_WORKER_BUNDLE = 'json-read-worker.js';

interface Job {
  resolve: (read: CutJson) => void;
  reject: (error: Error) => void;
}

export class JsonReadThread {
  private worker?: Worker;
  private readonly jobs = new Map<number, Job>();
  private lastId = 0;

  /** The file's JSON object, its strings cut to `maxStringChars`. Rejects as the read or the parse failed. */
  read(file: string, maxStringChars: number): Promise<CutJson> {
    const worker = this.running();
    const id = ++this.lastId;
    return new Promise<CutJson>((resolve, reject) => {
      this.jobs.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, file, maxStringChars } satisfies JsonReadRequest);
    });
  }

  /** Ends the thread, if one runs (reads in flight fail). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('the JSON reader was closed'));
    await worker?.terminate();
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(__dirname, path.join(__dirname, 'json-read-worker.ts'), JSON_READ_WORKER_BUNDLE, 'tempmail-json-read');
    worker.on('message', (reply: JsonReadReply) => this.settle(reply));
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => this.lost(worker, new Error(`the JSON reader thread exited (${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settle(reply: JsonReadReply): void {
    const job = this.jobs.get(reply.id);
    if (!job) return;
    this.finish(reply.id);
    if ('read' in reply) job.resolve(reply.read);
    else job.reject(Object.assign(new Error(reply.error), reply.code ? { code: reply.code } : {}));
  }

  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.failAll(error);
  }

  private failAll(error: Error): void {
    for (const [id, job] of this.jobs) {
      this.finish(id);
      job.reject(error);
    }
  }

  private finish(id: number): void {
    this.jobs.delete(id);
    // An idle thread keeps no process alive.
    if (this.jobs.size === 0) this.worker?.unref();
  }
}
