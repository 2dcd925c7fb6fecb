/**
 * The worker thread of parse-thread.ts: parses the mails it is sent with parse-mail.ts, several at once as they
 * come, and sends each result back with its attachments' memory transferred, not copied.
 */
import { parentPort } from 'node:worker_threads';
import type { ParsedMail, ParseOptions } from '../core/ports';
import { parseMail } from './parse-mail';

export interface ParseRequest {
  id: number;
  raw: Uint8Array;
  options: ParseOptions;
}

export type ParseReply = { id: number; parsed: ParsedMail } | { id: number; error: string };

/** Bytes that own their whole ArrayBuffer can be transferred; a view into a shared one (a pool's slab) is copied first. */
function ownMemory(bytes: Uint8Array, taken: Set<ArrayBufferLike>): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  if (whole && !taken.has(bytes.buffer)) return bytes;
  return new Uint8Array(bytes);
}

parentPort?.on('message', ({ id, raw, options }: ParseRequest) => {
  parseMail(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), options).then(
    (parsed) => {
      const taken = new Set<ArrayBufferLike>();
      const attachments = parsed.attachments.map((a) => {
        const content = ownMemory(a.content, taken);
        taken.add(content.buffer);
        return { ...a, content: content as Buffer };
      });
      parentPort!.postMessage({ id, parsed: { ...parsed, attachments } } satisfies ParseReply, [...taken] as ArrayBuffer[]);
    },
    (error: Error) => parentPort!.postMessage({ id, error: error.message } satisfies ParseReply),
  );
});
