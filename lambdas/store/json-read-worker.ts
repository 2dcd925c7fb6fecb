/**
 * The worker thread of json-read-thread.ts: reads a JSON file of the data folder, parses it and cuts its string fields
 * (core/message.ts cutStrings), so that only what an answer can carry crosses to the event loop's thread.
 */
import fsp from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { cutStrings } from '../core/message';
import type { CutJson } from '../core/ports';

export interface JsonReadRequest {
  id: number;
  file: string;
  maxStringChars: number;
}

/** `code`: the read's error code (ENOENT: the file was removed meanwhile, which the store reads again). */
export type JsonReadReply = { id: number; read: CutJson } | { id: number; error: string; code?: string };

parentPort?.on('message', ({ id, file, maxStringChars }: JsonReadRequest) => {
  fsp.readFile(file, 'utf8').then(
    (text) => {
      try {
        parentPort!.postMessage({ id, read: cutStrings(JSON.parse(text) as Record<string, unknown>, maxStringChars) } satisfies JsonReadReply);
      } catch (error) {
        parentPort!.postMessage({ id, error: (error as Error).message } satisfies JsonReadReply);
      }
    },
    (error: NodeJS.ErrnoException) => parentPort!.postMessage({ id, error: error.message, code: error.code } satisfies JsonReadReply),
  );
});
