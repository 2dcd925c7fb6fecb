/**
 * The worker thread of parse-thread.ts: parses the mails it is sent with parse-mail.ts, several at once as they
 * come, and sends each result back with its attachments' memory transferred, not copied. A text or HTML body longer
 * than extraction reads is sent held (HeldText): its JSON bytes, made here and transferred, and its head. A 38 MB
 * body sent as a string cost the receiving event loop 150–320 ms (the string's copy into fresh memory); held, it
 * costs that thread nothing, and its JSON is not made there either.
 */
import { parentPort } from 'node:worker_threads';
import { EXTRACT_SCAN_CHARS } from '../core/extract';
import { BODY_KEPT_CHARS, cut } from '../core/message';
import type { MailText } from '../core/mail-text';
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

/** `text` as sent back: itself when extraction reads all of it, else held (the JSON of what a message keeps of it). */
function sendable(text: string): MailText {
  if (text.length <= EXTRACT_SCAN_CHARS) return text;
  return { held: true, json: Buffer.from(JSON.stringify(cut(text, BODY_KEPT_CHARS)).slice(1, -1)), head: text.slice(0, EXTRACT_SCAN_CHARS), length: text.length };
}

parentPort?.on('message', ({ id, raw, options }: ParseRequest) => {
  parseMail(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), options).then(
    (parsed) => {
      const taken = new Set<ArrayBufferLike>();
      const transferred = (bytes: Uint8Array) => {
        const own = ownMemory(bytes, taken);
        taken.add(own.buffer);
        return own;
      };
      const attachments = parsed.attachments.map((a) => ({ ...a, content: transferred(a.content) as Buffer }));
      const [text, html] = [sendable(parsed.text), sendable(parsed.html)].map((t) => (typeof t === 'string' ? t : { ...t, json: transferred(t.json) }));
      parentPort!.postMessage({ id, parsed: { ...parsed, text, html, attachments } } satisfies ParseReply, [...taken] as ArrayBuffer[]);
    },
    (error: Error) => parentPort!.postMessage({ id, error: error.message } satisfies ParseReply),
  );
});
