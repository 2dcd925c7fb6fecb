/**
 * The message data of one DATA command, read to its end whatever its size, keeping at most the size limit: the first
 * MB in memory, the rest in a file of the SMTP spool folder (removed at the end, and at start by the server when a
 * crash left one), so that senders of oversized data cost a bounded amount of memory each.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { SMTPServerDataStream } from 'smtp-server';
import { MAX_MESSAGE_BYTES } from '../lambdas/core/limits';
import { crc32Combine } from './crc32';

/** A reply the SMTP server sends as it is (smtp.ts). */
export class SmtpReply extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** Data kept in memory per message; past this it is spooled to a file until the end of DATA. */
const IN_MEMORY_DATA_BYTES = 1024 * 1024;

/**
 * The message data, read to its end whatever its size: the first MB in memory, the rest (up to the size limit) in a
 * temporary file, and nothing past the limit, so that senders of oversized data cost a bounded amount of memory
 * each (3 parallel 300 MB DATA once took the process to 1 GB). 552 once the data has ended beyond the limit.
 * The data begins `room` bytes into the buffer (zeros): room for the trace fields (withHead), so that a 38 MB mail is
 * not copied whole on the event loop to put 300 bytes before it. Spooled data is read back by the thread pool into
 * shared memory (a SharedArrayBuffer), which the parse thread (parse-thread.ts) is handed without a copy.
 * `crc`: the data's CRC-32 (after the room), computed chunk by chunk as it arrives, for the spool's record: this
 * thread never reads spooled data back. `spooling` is told when the data starts going to a file, and called back
 * once the file is gone (the free-space headroom counts such files: local/free-space.ts).
 */
export async function readData(stream: SMTPServerDataStream, spoolDir: string, room = 0, spooling?: () => () => void): Promise<{ data: Buffer; crc: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let crc = 0;
  let spool: { path: string; file: fs.FileHandle } | undefined;
  let spooled: (() => void) | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_MESSAGE_BYTES) continue; // read and dropped
      crc = crc32(chunk, crc);
      if (!spool && size > IN_MEMORY_DATA_BYTES) {
        const file = path.join(spoolDir, `data-${randomBytes(8).toString('hex')}`);
        spooled = spooling?.();
        spool = { path: file, file: await fs.open(file, 'wx', 0o600) };
        for (const kept of chunks.splice(0)) await spool.file.write(kept);
      }
      if (spool) await spool.file.write(chunk);
      else chunks.push(chunk);
    }
    if (stream.sizeExceeded || size > MAX_MESSAGE_BYTES) throw new SmtpReply(552, '5.3.4 Message exceeds the 40 MB limit');
    if (!spool) return { data: Buffer.concat([Buffer.alloc(room), ...chunks]), crc };
    await spool.file.close();
    return { data: await readBack(spool.path, size, room), crc };
  } finally {
    if (spool) {
      await spool.file.close().catch(() => undefined);
      await fs.rm(spool.path, { force: true });
    }
    spooled?.();
  }
}

/** Spooled data read back after `room` bytes of a shared buffer, by the thread pool (no copy on the event loop). */
async function readBack(file: string, size: number, room: number): Promise<Buffer> {
  const bytes = Buffer.from(new SharedArrayBuffer(room + size));
  const handle = await fs.open(file, 'r');
  try {
    for (let at = room; at < bytes.length; ) {
      const { bytesRead } = await handle.read(bytes, at, bytes.length - at, at - room);
      if (bytesRead === 0) throw new Error('the spooled message data ended early');
      at += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return bytes;
}

/**
 * `head` then the data readData left `room` bytes before: written into that room when it fits, else joined (a copy);
 * with the CRC-32 of the whole, from the data's.
 */
export function withHead(head: Buffer, { data, crc }: { data: Buffer; crc: number }, room: number): { raw: Buffer; crc: number } {
  const whole = crc32Combine(crc32(head), crc, data.length - room);
  if (head.length > room) return { raw: Buffer.concat([head, data.subarray(room)]), crc: whole };
  head.copy(data, room - head.length);
  return { raw: data.subarray(room - head.length), crc: whole };
}
