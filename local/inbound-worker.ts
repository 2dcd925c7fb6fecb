/**
 * The SMTP stand-in's inbound worker: what happens to a mail from its end of DATA on. It makes the raw mail durable
 * before the 250 (the embedded form: the spool, local/inbound-spool.ts; the dynamodb form: the inbound object in the
 * S3 server, as SES's S3 action does), then runs the same ingest use case the SES handler runs on the mail it holds
 * in memory, retrying until it is stored, also across restarts: a mail that got a 250 is never lost. A bounded number
 * of ingests run at once (`concurrency`); a mail beyond that waits before its 250, so 250 → visible stays short.
 */
import type { IngestContext } from '../lambdas/usecases/context';
import { acceptInbound, finishInbound, ingestInbound, pendingInbound, spoolSegmentFloor, type Envelope } from '../lambdas/usecases/inbound';
import { QuotaReservations, reserveAccepted } from '../lambdas/usecases/ingest';
import type { InboundSpool, SpoolPlace } from './inbound-spool';

interface Accepted {
  envelope: Envelope;
  /** Held for the first attempt; a retry reads it again from the spool (mail waiting out an outage holds no memory). */
  raw?: Buffer;
  /** Where the spool holds it; absent: the inbound object (the dynamodb form, and mail queued by older versions). */
  place?: SpoolPlace;
}

export interface WorkerOptions {
  ctx: IngestContext;
  concurrency: number;
  /** The embedded form's spool; without it mail waits as inbound objects in the blob store. */
  spool?: InboundSpool;
  /** Every mail's fate on its own line (LOG_LEVEL=DEBUG); otherwise a summary a second while mail flows. */
  logEachMail: boolean;
  log: (line: string) => void;
}

export class InboundWorker {
  /** Mail past its 250 and not yet stored, counted per account and day, so that the daily limit holds before the 250. */
  readonly reservations = new QuotaReservations();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly slots: Semaphore;
  private closed = false;
  private readonly counts = { received: 0, stored: 0, bytes: 0 };
  private summaryTimer?: NodeJS.Timeout;

  constructor(private readonly options: WorkerOptions) {
    this.slots = new Semaphore(options.concurrency);
  }

  /** Replays what a previous run accepted and did not store; then logs a summary each second mail flows. */
  async start(): Promise<void> {
    const replay = this.options.spool ? await this.options.spool.open(await spoolSegmentFloor(this.options.ctx)) : [];
    this.summaryTimer = setInterval(() => this.summary(), 1_000);
    this.summaryTimer.unref();
    void this.resume(replay);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.summaryTimer);
    this.summary();
  }

  /**
   * Makes the mail durable and schedules its ingest; resolves when the 250 may be sent. `done` releases its quota
   * reservation (at once when this throws: then the sender gets a 451 and sends it again). `rawCrc`: the raw's
   * CRC-32 when the caller has it (the SMTP stand-in computes it as the data arrives).
   */
  async accept(envelope: Envelope, raw: Buffer, done: () => void, rawCrc?: number): Promise<void> {
    const { ctx, spool } = this.options;
    let place: SpoolPlace | undefined;
    let release: (() => void) | undefined;
    try {
      // The spool first, so that the appends of every session waiting form one group (one fdatasync), then a slot.
      if (spool) place = await spool.append(envelope, raw, rawCrc);
      release = await this.slots.acquire();
      if (!spool) await acceptInbound(ctx, envelope, raw);
    } catch (error) {
      done();
      release?.();
      throw error;
    }
    this.counts.received++;
    this.counts.bytes += raw.length;
    if (this.options.logEachMail) this.options.log(`[smtp] received ${envelope.mailId}: ${raw.length} bytes for ${envelope.recipients.join(', ')}`);
    this.schedule({ envelope, raw, place }, release, done);
  }

  private summary(): void {
    const { received, stored, bytes } = this.counts;
    if (received === 0 && stored === 0) return;
    this.options.log(`[smtp] last second: ${received} mail received (${(bytes / 1024).toFixed(0)} KB), ${stored} stored, ${this.pending.size} waiting`);
    this.counts.received = this.counts.stored = this.counts.bytes = 0;
  }

  /** `release`: the ingest slot this mail holds while an attempt runs; `done`: its quota reservation. */
  private schedule(mail: Accepted, release: () => void, done: () => void): void {
    const { mailId } = mail.envelope;
    if (this.pending.has(mailId)) {
      done();
      return release();
    }
    const run = this.ingestUntilStored(mail, release, done).finally(() => {
      done();
      this.pending.delete(mailId);
    });
    this.pending.set(mailId, run);
  }

  /**
   * Runs ingest until it succeeds, then the clean-up until that succeeds: ingest never runs again once it has stored
   * the mail. A slot is held only while an attempt runs, so retries are bounded like first attempts and a failing
   * dependency does not block new mail behind back-offs.
   */
  private async ingestUntilStored(mail: Accepted, release: () => void, stored: () => void): Promise<void> {
    const { ctx, spool, log } = this.options;
    const { envelope, place } = mail;
    const steps: [string, () => Promise<unknown>][] = [
      [
        'ingest',
        async () => {
          const raw = mail.raw ?? (place && spool ? await spool.read(place) : undefined);
          mail.raw = undefined;
          const outcomes = await this.reservations.whileStoring(async () => {
            const outcomes = await ingestInbound(ctx, envelope, raw, place && { segment: place.segment, offset: place.offset });
            // Once stored, the store's day count includes the mail: its reservation goes at once.
            stored();
            return outcomes;
          });
          for (const o of outcomes) {
            if (o.degraded) log(`[smtp] ${envelope.mailId} stored degraded as ${o.messageId}: ${o.degraded}`);
            else if (o.outcome !== 'stored' && o.outcome !== 'duplicate') log(`[smtp] ${envelope.mailId} for ${o.recipient} dropped (${o.outcome})`);
            else if (this.options.logEachMail) log(`[smtp] ${envelope.mailId} for ${o.recipient}: ${o.outcome} as ${o.messageId}`);
          }
          this.counts.stored++;
        },
      ],
      ['clean-up', async () => (place && spool ? spool.stored(place) : finishInbound(ctx, envelope))],
    ];
    let slot: (() => void) | undefined = release;
    try {
      for (const [name, step] of steps) {
        for (let attempt = 0; ; attempt++) {
          if (this.closed) return;
          slot ??= await this.slots.acquire();
          try {
            await step();
            break;
          } catch (error) {
            slot();
            slot = undefined;
            if (attempt === 0 || attempt % 10 === 0) log(`[smtp] ${name} of ${envelope.mailId} failed (${(error as Error).message}); retrying`);
            await new Promise((r) => setTimeout(r, Math.min(10_000, 100 * 2 ** attempt)));
          }
        }
      }
    } finally {
      slot?.();
    }
  }

  /**
   * After a restart: the spool's records, then every inbound object still there (the dynamodb form's queue, or mail an
   * older version queued), were accepted but maybe not stored. Each is counted against its account's day until stored.
   */
  private async resume(replay: { envelope: Envelope; raw: Buffer; place: SpoolPlace }[]): Promise<void> {
    const { ctx, log } = this.options;
    for (const mail of replay) await this.resumeOne(mail);
    const busy = (mailId: string) => this.pending.has(mailId);
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        for (const item of await pendingInbound(ctx, busy)) {
          if ('unreadable' in item) log(`[smtp] ${item.unreadable}; left in place`);
          else if (!busy(item.envelope.mailId)) await this.resumeOne({ envelope: item.envelope });
        }
        return;
      } catch (error) {
        log(`[smtp] resuming accepted mail failed (${(error as Error).message}); retrying`);
        await new Promise((r) => setTimeout(r, Math.min(10_000, 200 * 2 ** attempt)));
      }
    }
  }

  private async resumeOne(mail: Accepted): Promise<void> {
    const reservation = await retrying(() => reserveAccepted(this.options.ctx, mail.envelope.recipients, this.reservations), this.options.log, () => this.closed);
    if (!reservation) return;
    this.schedule(mail, await this.slots.acquire(), reservation.release);
  }

  /** Resolves when every accepted mail has been ingested (tests and benchmarks). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending.values()]);
  }
}

async function retrying<T>(call: () => Promise<T>, log: (line: string) => void, stop: () => boolean): Promise<T | undefined> {
  for (let attempt = 0; !stop(); attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt === 0 || attempt % 10 === 0) log(`[smtp] resuming accepted mail failed (${(error as Error).message}); retrying`);
      await new Promise((r) => setTimeout(r, Math.min(10_000, 200 * 2 ** attempt)));
    }
  }
  return undefined;
}

/** A counting semaphore; `acquire` resolves with a release function that is safe to call more than once. */
class Semaphore {
  private readonly waiting: (() => void)[] = [];
  constructor(private available: number) {}

  async acquire(): Promise<() => void> {
    if (this.available > 0) this.available--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.available++;
    };
  }
}
