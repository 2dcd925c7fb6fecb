/**
 * The worker thread of json-read-thread.ts: reads a JSON file of the data folder with its string fields cut
 * (json-cut-reader.ts: the cut part of a string is never decoded), so that only what an answer can carry crosses to
 * the event loop's thread.
 */
import fsp from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { cutJson } from '../core/message';
import type { CutJson } from '../core/ports';
import { readCutJson } from './json-cut-reader';

export interface JsonReadRequest {
  id: number;
  file: string;
  maxStringChars: number;
}

/** `code`: the read's error code (ENOENT: the file was removed meanwhile, which the store reads again). */
export type JsonReadReply = { id: number; read: CutJson } | { id: number; error: string; code?: string };

/** Cut as it is read (json-cut-reader.ts); what that does not expect is parsed whole, to the same result. */
function cutRead(bytes: Buffer, maxStringChars: number): CutJson {
  try {
    const read = readCutJson(bytes, maxStringChars);
    if (read) return read;
  } catch {
    // parsed whole below, which says what is wrong with it
  }
  return cutJson(bytes.toString('utf8'), maxStringChars);
}

/**
 * Files up to this size are read into one buffer the thread keeps: its memory is touched once, not again for every
 * read (a first touch of fresh memory cost about 5 ms a MB here, most of a 38 MB read). Larger ones get their own.
 */
const KEPT_BUFFER_MAX_BYTES = 64 * 1024 * 1024;
let kept = Buffer.alloc(0);

/** The file's bytes: in the kept buffer when they fit it (valid until the next read: reads run one at a time). */
async function readBytes(file: string): Promise<Buffer> {
  const handle = await fsp.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > KEPT_BUFFER_MAX_BYTES) return await handle.readFile();
    if (kept.length < size) kept = Buffer.allocUnsafe(Math.min(KEPT_BUFFER_MAX_BYTES, Math.max(size, kept.length * 2)));
    const bytes = kept.subarray(0, size);
    for (let at = 0; at < size; ) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at);
      if (bytesRead === 0) throw new Error(`${file} ended early`);
      at += bytesRead;
    }
    return bytes;
  } finally {
    await handle.close();
  }
}

async function answer({ id, file, maxStringChars }: JsonReadRequest): Promise<JsonReadReply> {
  let bytes: Buffer;
  try {
    bytes = await readBytes(file);
  } catch (error) {
    return { id, error: (error as Error).message, code: (error as NodeJS.ErrnoException).code };
  }
  try {
    return { id, read: cutRead(bytes, maxStringChars) };
  } catch (error) {
    return { id, error: (error as Error).message };
  }
}

// One read at a time (they share the kept buffer), in the order asked.
let queue = Promise.resolve();
parentPort?.on('message', (request: JsonReadRequest) => {
  queue = queue.then(async () => parentPort!.postMessage(await answer(request)));
});
