/**
 * The local stand-in for SES receiving: an SMTP server for the configured domains only, the protocol and its limits.
 * Like SES's receipt rule it answers 250 only once the raw mail is durable; what follows the end of DATA (the spool,
 * ingest, retries, replay after a restart) is the inbound worker's (local/inbound-worker.ts).
 *
 * It defends itself the way a mail server facing strangers must: SIZE is enforced while the data streams (bytes past
 * the limit are read and dropped, never kept; past 1 MB a message waits in a file of the data folder's spool, not in memory; files a crash left there are removed at start), each client address may hold a bounded number of connections, and a
 * session that sends no mail for the idle time is closed however many NOOPs it sends. Address probing is made slow and
 * uninformative: a dead address (unknown, deleted or expired) gets one and the same reply, rejected recipients count
 * toward a session's recipient cap, and past a few each rejection waits longer (a tarpit).
 */
import fs from 'node:fs/promises';
import type { SMTPServer, SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import { DependencyUnavailable } from '../lambdas/core/errors';
import { MAX_MESSAGE_BYTES, MAX_RECIPIENTS } from '../lambdas/core/limits';
import type { Caller } from '../lambdas/core/model';
import type { IngestContext } from '../lambdas/usecases/context';
import { newMailId, type Envelope } from '../lambdas/usecases/inbound';
import { admitMail, admitRecipient, type Admission } from '../lambdas/usecases/ingest';
import { InboundWorker } from './inbound-worker';
import type { InboundSpool } from './inbound-spool';
import { readData, SmtpReply, withHead } from './smtp-data';
import { PromptSMTPServer } from './smtp-greeting';
import { traceHeaders } from './trace-headers';
import { INGEST_SPACE_FACTOR, type FreeSpace } from './free-space';

export interface MailServerOptions {
  host: string;
  port: number;
  ctx: IngestContext;
  /** A session that sends no mail for this long is closed (NOOP and RSET do not count as mail). */
  socketTimeoutMs: number;
  /** Ingests in flight at most; a mail beyond that waits before its 250 (backpressure keeps 250→visible short). */
  ingestConcurrency: number;
  /** The embedded form's inbound spool (local/inbound-spool.ts); without it, the blob store's inbound queue. */
  inboundSpool?: InboundSpool;
  /** A log line per mail (LOG_LEVEL=DEBUG); otherwise a summary each second. */
  logEachMail?: boolean;
  /**
   * Where DATA past 1 MB waits until its end: a folder of this server's own (in the data folder), emptied at start,
   * since a file in it then belongs to a process that was killed mid-DATA.
   */
  spoolDir: string;
  /** The tarpit's step: the n-th rejected RCPT past REJECTIONS_BEFORE_TARPIT waits n × this (at most TARPIT_MAX_STEPS ×); 0: none. */
  tarpitStepMs: number;
  /** STARTTLS is offered with this certificate (local/smtp-tls.ts). */
  tls: { key: Buffer; cert: Buffer };
  /** AUTH PLAIN and LOGIN are offered and any credentials accepted (nothing is checked: there is nothing to protect locally). */
  auth: boolean;
  /** Catch-all (TEMPMAIL_CATCH_ALL): mail to an address of our domains without an inbox creates one for this account. */
  catchAllFor?: Caller;
  /** The data folder's free-space headroom: below it new mail gets 452 4.3.1 (local/free-space.ts). */
  space?: FreeSpace;
  /** Called as each RCPT and each end of DATA arrives, before anything is read for it (Stores.askOncePerInput). */
  inputArrived?: () => void;
  log: (line: string) => void;
}

/** How this server names itself: in its greeting and in the Received field it adds. */
const HOST_NAME = 'tempmail.local';
/** Room readData leaves before the data for the trace fields (about 300 bytes; longer ones are joined by a copy). */
const TRACE_ROOM = 4096;

/** Rejected recipients a session may have before each further one is answered late. */
export const REJECTIONS_BEFORE_TARPIT = 3;
const TARPIT_MAX_STEPS = 20;
/** The wait before answering a session's `rejected`-th rejected RCPT (counting it). */
export const tarpitDelayMs = (rejected: number, stepMs: number): number =>
  Math.min(TARPIT_MAX_STEPS, Math.max(0, rejected - REJECTIONS_BEFORE_TARPIT)) * stepMs;

/**
 * Connections one client address may hold: enough for a test suite sending in parallel, few enough that one client
 * can never hold the server's MAX_CLIENTS and lock every other sender out.
 */
export const MAX_CONNECTIONS_PER_CLIENT = 50;
const MAX_CLIENTS = 1_000;

/** One reply for every dead address, so that a prober learns nothing about whether an address ever lived. */
const NO_MAILBOX = new SmtpReply(550, '5.1.1 No such mailbox');
const REFUSALS: Record<Exclude<Admission, 'ok'>, SmtpReply> = {
  'not-our-domain': new SmtpReply(550, '5.7.1 Relaying denied: not a domain of this server'),
  'unknown-inbox': NO_MAILBOX,
  'expired-inbox': NO_MAILBOX,
  quota: new SmtpReply(452, "4.2.2 Daily e-mail limit of this inbox's account reached"),
  reserved: new SmtpReply(550, '5.1.1 No such mailbox: a reserved name (postmaster, abuse, no-reply, …), which catch-all never creates'),
  'inbox-limit': new SmtpReply(452, "4.2.2 Catch-all cannot create this inbox: the account holds its plan's most live inboxes; delete one or let one expire"),
  storage: new SmtpReply(452, "4.2.2 Storage quota of this inbox's account is full"),
};
const NO_SPACE = new SmtpReply(452, '4.3.1 Insufficient system storage; try again later');
const TOO_LARGE_FOR_QUOTA = new SmtpReply(552, "5.2.2 Message larger than the storage quota of the recipient's account");

/** The smtp-server connection objects, as far as closing idle ones needs them. */
interface Connection {
  session?: { id: string };
  send(code: number, message: string): void;
  close(): void;
}

export class LocalMailServer {
  private readonly server: SMTPServer;
  private readonly worker: InboundWorker;
  private readonly perClient = new Map<string, number>();
  /** session id → when it last made progress with a mail: connected, MAIL, RCPT, a chunk of DATA, its end. */
  private readonly lastMail = new Map<string, number>();
  /** session id → recipients refused as dead or foreign in the session so far (never reset by RSET or a new MAIL). */
  private readonly rejected = new Map<string, number>();
  private idleTimer?: NodeJS.Timeout;

  constructor(private readonly options: MailServerOptions) {
    this.worker = new InboundWorker({
      ctx: options.ctx,
      concurrency: options.ingestConcurrency,
      spool: options.inboundSpool,
      logEachMail: options.logEachMail ?? false,
      log: options.log,
    });
    this.server = new PromptSMTPServer({
      name: HOST_NAME,
      banner: 'TempMail local SMTP (SES stand-in)',
      // As Mailpit: STARTTLS with the stack's certificate, and AUTH with any credentials, before TLS too (applications
      // configured with credentials send them either way); a client that does neither is served all the same.
      key: options.tls.key,
      cert: options.tls.cert,
      authOptional: true,
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: true,
      disabledCommands: options.auth ? [] : ['AUTH'],
      onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? 'local' }),
      // No reverse DNS per connection: nothing uses the client's host name, and a lookup without an answer held
      // the greeting for up to 1.5 s (long enough for a short idle timeout to close the session before its EHLO).
      disableReverseLookup: true,
      size: MAX_MESSAGE_BYTES,
      maxClients: MAX_CLIENTS,
      socketTimeout: options.socketTimeoutMs,
      closeTimeout: 5_000,
      logger: false,
      onConnect: (session, callback) => {
        const client = session.remoteAddress;
        const held = this.perClient.get(client) ?? 0;
        if (held >= MAX_CONNECTIONS_PER_CLIENT) {
          return callback(Object.assign(new Error(`4.7.0 Too many connections from ${client}; try again later`), { responseCode: 421 }));
        }
        this.perClient.set(client, held + 1);
        (session as { counted?: boolean }).counted = true;
        this.lastMail.set(session.id, Date.now());
        callback();
      },
      onClose: (session) => {
        this.lastMail.delete(session.id);
        this.rejected.delete(session.id);
        if (!(session as { counted?: boolean }).counted) return;
        const left = (this.perClient.get(session.remoteAddress) ?? 1) - 1;
        if (left > 0) this.perClient.set(session.remoteAddress, left);
        else this.perClient.delete(session.remoteAddress);
      },
      onMailFrom: (_address, session, callback) => {
        this.lastMail.set(session.id, Date.now());
        callback();
      },
      onRcptTo: (address, session, callback) => {
        this.options.inputArrived?.();
        this.lastMail.set(session.id, Date.now());
        this.checkRecipient(address, session).then(
          () => callback(),
          (error: Error) => callback(asSmtpError(error)),
        );
      },
      onData: (stream, session, callback) => {
        // A session sending data is not idle, however long a large message takes (the socket timeout still holds).
        this.lastMail.set(session.id, Infinity);
        this.accept(stream, session).then(
          () => {
            this.lastMail.set(session.id, Date.now());
            callback(null, 'Ok: queued');
          },
          (error: Error) => {
            this.lastMail.set(session.id, Date.now());
            callback(asSmtpError(error));
          },
        );
      },
    });
    this.server.on('error', (error) => options.log(`[smtp] ${error.message}`));
  }

  async listen(): Promise<number> {
    await fs.rm(this.options.spoolDir, { recursive: true, force: true });
    await fs.mkdir(this.options.spoolDir, { recursive: true, mode: 0o700 });
    await new Promise<void>((resolve, reject) => {
      this.server.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => resolve());
    });
    this.idleTimer = setInterval(() => this.closeIdleSessions(), Math.max(250, Math.min(5_000, this.options.socketTimeoutMs / 4)));
    this.idleTimer.unref();
    await this.worker.start();
    return (this.server.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    this.worker.close();
    clearInterval(this.idleTimer);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Sessions that keep the line open without sending mail (NOOP every few seconds) hold a slot others need. */
  private closeIdleSessions(): void {
    const cutoff = Date.now() - this.options.socketTimeoutMs;
    for (const connection of (this.server as unknown as { connections: Set<Connection> }).connections) {
      const id = connection.session?.id;
      const last = id ? this.lastMail.get(id) : undefined;
      if (last !== undefined && last < cutoff) {
        this.lastMail.delete(id!);
        connection.send(421, '4.4.2 Idle for too long without sending mail; closing');
        connection.close();
      }
    }
  }

  private async checkRecipient(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    // Refused recipients count too: without them a session could probe 20,000 addresses in a second.
    const rejected = this.rejected.get(session.id) ?? 0;
    if (session.envelope.rcptTo.length + rejected >= MAX_RECIPIENTS) throw new SmtpReply(452, '4.5.3 Too many recipients');
    if (this.options.space && !this.options.space.roomForRecipient()) throw NO_SPACE;
    const admission = await admitRecipient(this.options.ctx, address.address, this.worker.reservations, { catchAllFor: this.options.catchAllFor });
    if (admission === 'ok') return;
    // A full quota (452) says nothing about the address and a sender retries it later: neither counted nor slowed.
    if (admission === 'quota' || admission === 'storage' || admission === 'inbox-limit') throw REFUSALS[admission];
    this.rejected.set(session.id, rejected + 1);
    const wait = tarpitDelayMs(rejected + 1, this.options.tarpitStepMs);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    throw REFUSALS[admission];
  }

  /** Reads the data (keeping at most the size limit), reserves the recipients' quota, stores it durably. */
  private async accept(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    const data = await readData(stream, this.options.spoolDir, TRACE_ROOM, this.options.space?.spoolingData);
    // The end of DATA is the client's next request: what it knew when it sent the final dot must be seen.
    this.options.inputArrived?.();
    const { ctx } = this.options;
    const envelope: Envelope = {
      mailId: newMailId(ctx.now()),
      recipients: session.envelope.rcptTo.map((r) => r.address),
      envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
      receivedAt: new Date(ctx.now()).toISOString(),
    };
    // SES's Return-Path and Received before the mail's own fields: the raw stored, downloaded and parsed has them as on AWS.
    const trace = traceHeaders({
      mailFrom: envelope.envelopeFrom,
      recipients: envelope.recipients,
      helo: session.hostNameAppearsAs || '',
      clientAddress: session.remoteAddress,
      by: HOST_NAME,
      protocol: session.transmissionType,
      id: envelope.mailId,
      date: new Date(envelope.receivedAt),
    });
    const { raw, crc } = withHead(trace, data, TRACE_ROOM);
    // Counted before the 250: a mail that got one is within its account's limit, however many sessions race.
    const admitted = await admitMail(ctx, envelope.recipients, this.worker.reservations, raw.length);
    if (admitted === 'quota' || admitted === 'storage') throw REFUSALS[admitted];
    if (admitted === 'too-large') throw TOO_LARGE_FOR_QUOTA;
    if (admitted === 'no-inbox') throw new SmtpReply(550, '5.1.1 No such mailbox: deleted or expired since RCPT');
    // The space its ingest may take is claimed before the spool writes the raw and held until the ingest ends: a 250
    // only for mail that can be stored.
    const room = this.options.space ? this.options.space.claim(raw.length * INGEST_SPACE_FACTOR) : { release: () => undefined };
    if (!room) {
      admitted.release();
      throw NO_SPACE;
    }
    await this.worker.accept(envelope, raw, () => (admitted.release(), room.release()), crc);
  }

  /** Resolves when every accepted mail has been ingested (tests and benchmarks). */
  drain(): Promise<void> {
    return this.worker.drain();
  }
}

function asSmtpError(error: Error): Error & { responseCode: number } {
  if (error instanceof SmtpReply) return Object.assign(new Error(error.message), { responseCode: error.responseCode });
  // Storage down: a temporary failure, so the sender retries; never a 250 without durable storage.
  const message = error instanceof DependencyUnavailable ? `4.3.0 ${error.message}; try again later` : '4.3.0 Temporary failure; try again later';
  return Object.assign(new Error(message), { responseCode: 451 });
}
