/**
 * The local stack's MailParser: a mail of THREAD_PARSE_MIN_BYTES or more is parsed on a worker thread
 * (parse-worker.ts), so that its parse does not hold the one event loop that serves the API and every SMTP session
 * (three 38 MB mails once stalled the API 1.7–1.8 s again and again, and a 39 MB mail's busy stretch was about 5 s).
 * Smaller mail, nearly all of it, is parsed where it is, as before: a thread's round trip costs more than its parse.
 * A function on AWS parses in-process (lambdas/app/ingest.ts): it serves one event at a time.
 *
 * The worker runs parse-mail.ts itself, so the result is the same parse. Neither method throws (the port's promise):
 * a worker that fails, dies or outlives the parse's own time budget is ended (a new one starts for the next mail) and
 * the mail is read minimally, with `parse_error` saying why, as parse-mail.ts does when mailparser fails in-process.
 */
import path from 'node:path';
import type { MailParser, ParsedMail, ParseOptions } from '../core/ports';
import { JobThread, startWorker } from '../layout/worker-threads';
import { mailParser, parseBudgetMs } from './parse-mail';
import type { ParseReply, ParseRequest } from './parse-worker';

/** Mails at least this large are parsed on the worker thread. */
export const THREAD_PARSE_MIN_BYTES = 1024 * 1024;

/** Beyond the parse's own budget (which the worker's parse-mail.ts enforces), how long the worker may take to answer. */
const WORKER_GRACE_MS = 10_000;

/** The compiled worker beside the npm package's bundle (scripts/build-package.ts), whose __dirname is its bin/. */
export const PARSE_WORKER_BUNDLE = 'parse-worker.js';

/** The worker: the package's compiled script, else this folder's TypeScript (lambdas/layout/worker-threads.ts). */
const newWorker = () => startWorker(__dirname, path.join(__dirname, 'parse-worker.ts'), PARSE_WORKER_BUNDLE, 'tempmail-parse');

export class ThreadedMailParser implements MailParser {
  private readonly thread = new JobThread<ParseReply, ParsedMail>(
    newWorker,
    (reply) => {
      if ('error' in reply) return new Error(reply.error);
      // Transferred, its buffers arrive as plain Uint8Arrays: Buffers again, over the same memory.
      const { parsed } = reply;
      return { ...parsed, attachments: parsed.attachments.map((a) => ({ ...a, content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) })) };
    },
    'the parser thread',
  );
  /** Mails parsed on the worker thread so far (tests read it). */
  threaded = 0;

  constructor(
    private readonly inProcess: MailParser = mailParser,
    readonly minBytes = THREAD_PARSE_MIN_BYTES,
  ) {}

  minimal(raw: Buffer, options: ParseOptions, error: string): ParsedMail {
    return this.inProcess.minimal(raw, options, error);
  }

  async parse(raw: Buffer, options: ParseOptions): Promise<ParsedMail> {
    if (raw.length < this.minBytes) return this.inProcess.parse(raw, options);
    this.threaded++;
    try {
      // The mail is copied to the thread (the caller keeps its buffer: ingest stores it as the raw copy), unless it
      // lies in shared memory (the SMTP stand-in reads large DATA into a SharedArrayBuffer): the thread reads it there.
      return await this.thread.run((id) => ({ id, raw, options }) satisfies ParseRequest, parseBudgetMs(raw, options) + WORKER_GRACE_MS);
    } catch (error) {
      return this.inProcess.minimal(raw, options, `the MIME structure could not be parsed (${(error as Error).message}); shown as plain text`);
    }
  }

  /** Ends the worker, if one runs (jobs in flight are read minimally). */
  close(): Promise<void> {
    return this.thread.close('the parser was closed');
  }
}
