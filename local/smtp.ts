/**
 * The local stand-in for SES receiving: an SMTP server for the configured domains only. Like SES's receipt rule
 * it stores the raw mail (inbound/<id>) before anything else, and only then answers 250; the ingest handler then
 * runs with an SES-shaped event. A spool record per accepted mail makes ingest retry until it succeeds, also
 * across restarts, so a mail that got a 250 is never lost.
 */
import { randomBytes } from 'node:crypto';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { SESEvent } from 'aws-lambda';
import { inboxAddressFor, isOurDomain } from '../lambdas/core/address';
import { DependencyUnavailable } from '../lambdas/core/errors';
import { isExpired, utcDay } from '../lambdas/core/inbox';
import { MAX_MESSAGE_BYTES, MAX_RECIPIENTS } from '../lambdas/core/limits';
import { blobKeys } from '../lambdas/core/ports';
import type { AppContext } from '../lambdas/usecases/context';
import { lambdaContext, loadHandler } from './handlers';

export interface MailServerOptions {
  host: string;
  port: number;
  ctx: AppContext;
  bundleDir?: string;
  socketTimeoutMs: number;
  log: (line: string) => void;
}

interface SpoolEntry {
  mailId: string;
  recipients: string[];
  envelopeFrom: string;
  receivedAt: string;
}

const SPOOL_PREFIX = 'spool/';
const spoolKey = (mailId: string) => `${SPOOL_PREFIX}${mailId}.json`;

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
  private closed = false;

  constructor(private readonly options: MailServerOptions) {
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
    void this.resumeSpool();
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
    const id = await ctx.stores.inboxes.inboxIdForAddress(inboxAddress);
    const inbox = id ? await ctx.stores.inboxes.getInbox(id) : null;
    if (!inbox) throw new SmtpReply(550, '5.1.1 No such mailbox');
    if (isExpired(inbox.expires_at_epoch, ctx.now())) throw new SmtpReply(550, '5.1.1 Mailbox expired');
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
    const { blobs } = this.options.ctx.stores;
    // Durable before the 250: the raw mail where SES's S3 action puts it, then the spool record that owes its ingest.
    await Promise.all([
      blobs.put(blobKeys.inbound(entry.mailId), raw, 'message/rfc822'),
      blobs.put(spoolKey(entry.mailId), JSON.stringify(entry), 'application/json'),
    ]);
    this.schedule(entry);
  }

  private schedule(entry: SpoolEntry): void {
    if (this.pending.has(entry.mailId)) return;
    const run = this.ingestUntilStored(entry).finally(() => this.pending.delete(entry.mailId));
    this.pending.set(entry.mailId, run);
  }

  /** Calls the ingest handler until it succeeds, backing off; then the raw and spool objects are done with. */
  private async ingestUntilStored(entry: SpoolEntry): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        await loadHandler('ingest/handler', this.options.bundleDir)(sesEvent(entry), lambdaContext('ingest'));
        const { blobs } = this.options.ctx.stores;
        // The spool record goes first: a raw object without one is never re-ingested, only left for clean-up.
        await blobs.delete(spoolKey(entry.mailId));
        await blobs.delete(blobKeys.inbound(entry.mailId));
        return;
      } catch (error) {
        const delay = Math.min(10_000, 100 * 2 ** attempt);
        if (attempt === 0 || attempt % 10 === 0) this.options.log(`[smtp] ingest of ${entry.mailId} failed (${(error as Error).message}); retrying`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** After a restart: every spool record still there was accepted but not yet stored. */
  private async resumeSpool(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        const { blobs } = this.options.ctx.stores;
        for (const key of await blobs.list(SPOOL_PREFIX)) {
          const body = await blobs.get(key);
          if (body) this.schedule(JSON.parse(body.toString('utf8')) as SpoolEntry);
        }
        return;
      } catch (error) {
        this.options.log(`[smtp] spool scan failed (${(error as Error).message}); retrying`);
        await new Promise((r) => setTimeout(r, Math.min(10_000, 200 * 2 ** attempt)));
      }
    }
  }

  /** Resolves when every accepted mail has been ingested (tests and benchmarks). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending.values()]);
  }
}

function asSmtpError(error: Error): Error & { responseCode: number } {
  if (error instanceof SmtpReply) return Object.assign(new Error(error.message), { responseCode: error.responseCode });
  // Storage down: a temporary failure, so the sender retries; never a 250 without durable storage.
  const message = error instanceof DependencyUnavailable ? `4.3.0 ${error.message}; try again later` : '4.3.0 Temporary failure; try again later';
  return Object.assign(new Error(message), { responseCode: 451 });
}
