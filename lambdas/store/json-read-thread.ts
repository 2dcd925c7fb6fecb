/**
 * The embedded store's JSON reader for objects kept in files (BlobStore.getJson): a message's body object can be
 * 40 MB of JSON, and reading it back as a string and parsing it held the local stack's one event loop, which serves
 * the API and every SMTP session, about 1.2 s for four parallel GETs of a 38 MB message (issue 27 item 2). The file
 * is read and parsed on a worker thread (json-read-worker.ts), which sends back the object with its strings cut to
 * what the caller asked for. The thread starts at the first such read and keeps no process alive while idle.
 */
import path from 'node:path';
import type { CutJson } from '../core/ports';
import { JobThread, startWorker } from '../layout/worker-threads';
import type { JsonReadReply, JsonReadRequest } from './json-read-worker';

/** The compiled worker beside the npm package's bundle (scripts/build-package.ts), whose __dirname is its bin/. */
export const JSON_READ_WORKER_BUNDLE = 'json-read-worker.js';

export class JsonReadThread {
  private readonly thread = new JobThread<JsonReadReply, CutJson>(
    () => startWorker(__dirname, path.join(__dirname, 'json-read-worker.ts'), JSON_READ_WORKER_BUNDLE, 'tempmail-json-read'),
    (reply) => ('read' in reply ? reply.read : Object.assign(new Error(reply.error), reply.code ? { code: reply.code } : {})),
    'the JSON reader thread',
  );

  /** The file's JSON object, its strings cut to `maxStringChars`. Rejects as the read or the parse failed. */
  read(file: string, maxStringChars: number): Promise<CutJson> {
    return this.thread.run((id) => ({ id, file, maxStringChars }) satisfies JsonReadRequest);
  }

  /** Ends the thread, if one runs (reads in flight fail). */
  close(): Promise<void> {
    return this.thread.close('the JSON reader was closed');
  }
}
