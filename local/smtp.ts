/**
 * The local stand-in for SES receiving: an SMTP server for the configured domains only. Like SES's receipt rule
 * it stores the raw mail (inbound/<id>) before anything else, and only then answers 250; the ingest handler then
 * runs with an SES-shaped event. The inbound object is the queue: it carries its envelope in its metadata and is
 * deleted only once ingest has stored the message, so ingest is retried until it succeeds, also across restarts,
 * and a mail that got a 250 is never lost.
 */
import { randomBytes } from 'node:crypto';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { SESEvent } from 'aws-lambda';
import { inboxAddressFor, isOurDomain } from '../lambdas/core/address';
import { DependencyUnavailable } from '../lambdas/core/errors';
import { utcDay } from '../lambdas/core/inbox';
import { MAX_MESSAGE_BYTES, MAX_RECIPIENTS } from '../lambdas/core/limits';
import { blobKeys } from '../lambdas/core/ports';
import { liveInbox } from '../lambdas/ingest/ingest-message';
import type { AppContext } from '../lambdas/usecases/context';
import { lambdaContext, loadHandler } from './handlers';

export interface MailServerOptions {
  host: string;
  port: number;
  ctx: AppContext;
  bundleDir?: string;
  socketTimeoutMs: number;
  /** Ingests in flight at most; a mail beyond that waits before its 250 (backpressure keeps 250→visible short). */
  ingestConcurrency: number;
  log: (line: string) => void;
}

export interface SpoolEntry {
  mailId: string;
  recipients: string[];
  envelopeFrom: string;
  receivedAt: string;
}

/** Envelopes too large for S3's 2 KB of user metadata (many recipients) go to a spool object beside the mail. */
const SPOOL_PREFIX = 'spool/';
const spoolKey = (mailId: string) => `${SPOOL_PREFIX}${mailId}.json`;
const ENVELOPE_META = 'tempmail-envelope';
const MAX_META_BYTES = 1_800;

/** The inbound object's metadata: the envelope itself, or a pointer to its spool object. */
export function envelopeMetadata(entry: SpoolEntry): { metadata: Record<string, string>; spooled: boolean } {
  const encoded = Buffer.from(JSON.stringify(entry)).toString('base64url');
  return encoded.length <= MAX_META_BYTES ? { metadata: { [ENVELOPE_META]: encoded }, spooled: false } : { metadata: { [ENVELOPE_META]: 'spool' }, spooled: true };
}

class SmtpReply extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** SES-like ids: time-ordered, unique. */
const newMailId = () => `${Date.now().toString(36)}${randomBytes(10).toString('hex')}`;

export function sesEvent(entry: SpoolEntry): SESEvent {
  const disabled = { status: 'DISABLED' };
  return {
    Records: [
      {
        eventSource: 'aws:ses',
        eventVersion: '1.0',
        ses: {
          mail: {
            timestamp: entry.receivedAt,
            source: entry.envelopeFrom,
            messageId: entry.mailId,
            destination: entry.recipients,
            headersTruncated: false,
            headers: [],
            commonHeaders: { returnPath: entry.envelopeFrom, date: entry.receivedAt, messageId: entry.mailId },
          },
          receipt: {
            timestamp: entry.receivedAt,
            processingTimeMillis: 0,
            recipients: entry.recipients,
            spamVerdict: disabled,
            virusVerdict: disabled,
            spfVerdict: disabled,
            dkimVerdict: disabled,
            dmarcVerdict: disabled,
            action: { type: 'Lambda', functionArn: 'arn:aws:lambda:local:000000000000:function:ingest', invocationType: 'Event' },
          },
        },
      },
    ],
  } as unknown as SESEvent;
}

export class LocalMailServer {
  private readonly server: SMTPServer;
  private readonly pending = new Map<string, Promise<void>>();
  private readonly slots: Semaphore;
  /** Mail this process accepted: resume() leaves these to accept(), which scheduled them already. */
  private readonly acceptedHere = new Set<string>();
  private closed = false;

  constructor(private readonly options: MailServerOptions) {
    this.slots = new Semaphore(options.ingestConcurrency);
    this.server = new SMTPServer({
      name: 'tempmail.local',
      banner: 'TempMail local SMTP (SES stand-in)',
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      size: MAX_MESSAGE_BYTES,
      rejectOversized: true,
      maxClients: 500,
      socketTimeout: options.socketTimeoutMs,
      closeTimeout: 5_000,
      logger: false,
      onRcptTo: (address, session, callback) => {
        this.checkRecipient(address, session).then(
          () => callback(),
          (error: Error) => callback(asSmtpError(error)),
        );
      },
      onData: (stream, session, callback) => {
        this.accept(stream, session).then(
          () => callback(null, 'Ok: queued'),
          (error: Error) => callback(asSmtpError(error)),
        );
      },
    });
    this.server.on('error', (error) => options.log(`[smtp] ${error.message}`));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => resolve());
    });
    void this.resume();
    return (this.server.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    this.closed = true;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async checkRecipient(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    const { ctx } = this.options;
    if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) throw new SmtpReply(452, '4.5.3 Too many recipients');
    const recipient = address.address;
    if (!isOurDomain(recipient, ctx.settings.domains)) throw new SmtpReply(550, '5.7.1 Relaying denied: not a domain of this server');
    const inboxAddress = inboxAddressFor(recipient, ctx.settings.domains);
    if (!inboxAddress) throw new SmtpReply(550, '5.1.1 No such mailbox');
    const inbox = await liveInbox(ctx, inboxAddress);
    if (inbox === 'unknown-inbox') throw new SmtpReply(550, '5.1.1 No such mailbox');
    if (inbox === 'expired-inbox') throw new SmtpReply(550, '5.1.1 Mailbox expired');
    const limit = ctx.settings.plans[inbox.plan].emails_per_day;
    if ((await ctx.stores.inboxes.usage(inbox.account_id, utcDay(ctx.now()))) >= limit) {
      throw new SmtpReply(452, '4.2.2 Daily e-mail limit of this inbox\'s account reached');
    }
  }

  private async accept(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    if (stream.sizeExceeded) throw new SmtpReply(552, '5.3.4 Message exceeds the 40 MB limit');
    const raw = Buffer.concat(chunks);
    const entry: SpoolEntry = {
      mailId: newMailId(),
      recipients: session.envelope.rcptTo.map((r) => r.address),
      envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
      receivedAt: new Date(this.options.ctx.now()).toISOString(),
    };
    const release = await this.slots.acquire();
    try {
      const { blobs } = this.options.ctx.stores;
      // Durable before the 250: the raw mail where SES's S3 action puts it, its envelope with it.
      const { metadata, spooled } = envelopeMetadata(entry);
      this.acceptedHere.add(entry.mailId);
      if (spooled) await blobs.put(spoolKey(entry.mailId), JSON.stringify(entry), 'application/json');
      await blobs.put(blobKeys.inbound(entry.mailId), raw, 'message/rfc822', metadata);
      this.schedule(entry, spooled, release);
    } catch (error) {
      this.acceptedHere.delete(entry.mailId);
      release();
      throw error;
    }
  }

  /** `release`: the ingest slot this mail holds while an attempt runs. */
  private schedule(entry: SpoolEntry, spooled: boolean, release: () => void): void {
    if (this.pending.has(entry.mailId)) return release();
    const run = this.ingestUntilStored(entry, spooled, release).finally(() => {
      this.pending.delete(entry.mailId);
      this.acceptedHere.delete(entry.mailId);
    });
    this.pending.set(entry.mailId, run);
  }

  /**
   * Calls the ingest handler until it succeeds, then deletes the inbound object (and spool object) until that
   * succeeds: the handler never runs again once it has stored the mail. A slot is held only while an attempt runs,
   * so retries are bounded like first attempts and a failing dependency does not block new mail behind back-offs.
   */
  private async ingestUntilStored(entry: SpoolEntry, spooled: boolean, release: () => void): Promise<void> {
    const { blobs } = this.options.ctx.stores;
    const steps: [string, () => Promise<unknown>][] = [
      ['ingest', () => loadHandler('ingest/handler', this.options.bundleDir)(sesEvent(entry), lambdaContext('ingest'))],
      // The inbound object goes first: once it is gone the mail is never ingested again.
      ['clean-up', () => blobs.delete(blobKeys.inbound(entry.mailId))],
      ...(spooled ? [['clean-up', () => blobs.delete(spoolKey(entry.mailId))] as [string, () => Promise<unknown>]] : []),
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
            if (attempt === 0 || attempt % 10 === 0) this.options.log(`[smtp] ${name} of ${entry.mailId} failed (${(error as Error).message}); retrying`);
            await new Promise((r) => setTimeout(r, Math.min(10_000, 100 * 2 ** attempt)));
          }
        }
      }
    } finally {
      slot?.();
    }
  }

  /** After a restart: every inbound object still there was accepted but not yet stored. */
  private async resume(): Promise<void> {
    const { blobs } = this.options.ctx.stores;
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        for (const key of await blobs.list(blobKeys.INBOUND_PREFIX)) await this.resumeOne(key);
        // Spool objects whose mail was stored (the inbound object is deleted first) are done with.
        for (const key of await blobs.list(SPOOL_PREFIX)) {
          const mailId = key.slice(SPOOL_PREFIX.length, -'.json'.length);
          if (!this.acceptedHere.has(mailId) && !this.pending.has(mailId) && !(await blobs.head(blobKeys.inbound(mailId)))) await blobs.delete(key);
        }
        return;
      } catch (error) {
        this.options.log(`[smtp] resuming accepted mail failed (${(error as Error).message}); retrying`);
        await new Promise((r) => setTimeout(r, Math.min(10_000, 200 * 2 ** attempt)));
      }
    }
  }

  /** One inbound object: scheduled, or (unreadable) logged and left in place; storage outages throw to retry. */
  private async resumeOne(key: string): Promise<void> {
    const { blobs } = this.options.ctx.stores;
    const mailId = key.slice(blobKeys.INBOUND_PREFIX.length);
    if (this.pending.has(mailId) || this.acceptedHere.has(mailId)) return;
    const metadata = await blobs.head(key);
    if (!metadata) return; // ingested meanwhile
    const envelope = metadata[ENVELOPE_META];
    const spooled = !envelope || envelope === 'spool';
    const spool = spooled ? await blobs.get(spoolKey(mailId)) : null;
    let entry: SpoolEntry | null;
    try {
      entry = spooled ? (spool ? (JSON.parse(spool.toString('utf8')) as SpoolEntry) : null) : (JSON.parse(Buffer.from(envelope, 'base64url').toString('utf8')) as SpoolEntry);
    } catch (error) {
      this.options.log(`[smtp] ${key}: unreadable envelope (${(error as Error).message}); left in place`);
      return;
    }
    if (entry) {
      this.schedule(entry, spooled, await this.slots.acquire());
    } else if (!envelope) {
      // Left by a version that kept envelopes only in spool objects and deleted the spool first: ingested.
      await blobs.delete(key);
    } else {
      this.options.log(`[smtp] ${key} points to a spool object that is missing; left in place`);
    }
  }

  /** Resolves when every accepted mail has been ingested (tests and benchmarks). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending.values()]);
  }
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

function asSmtpError(error: Error): Error & { responseCode: number } {
  if (error instanceof SmtpReply) return Object.assign(new Error(error.message), { responseCode: error.responseCode });
  // Storage down: a temporary failure, so the sender retries; never a 250 without durable storage.
  const message = error instanceof DependencyUnavailable ? `4.3.0 ${error.message}; try again later` : '4.3.0 Temporary failure; try again later';
  return Object.assign(new Error(message), { responseCode: 451 });
}
