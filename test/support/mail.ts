/** Sending mail over real SMTP to a stack, and a raw SMTP conversation for what nodemailer will not do. */
import net from 'node:net';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';

export function transport(smtpPort: number) {
  return nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, pool: false });
}

export async function sendMail(smtpPort: number, message: Mail.Options) {
  return transport(smtpPort).sendMail({ from: 'Sender <sender@example.com>', ...message });
}

/** Sends bytes as they are: the exact raw message the server receives. */
export async function sendRaw(smtpPort: number, to: string[], raw: Buffer | string, from = 'sender@example.com') {
  return transport(smtpPort).sendMail({ envelope: { from, to }, raw });
}

/**
 * A hand-driven SMTP session: `say(line)` sends a command and resolves with the server's (last) reply line, or
 * 'closed' once the server has closed the connection. Lets a test stop between RCPT and DATA, send 1,000 RCPTs,
 * pipeline, or stream more data than the size limit. `localAddress` picks the client address (127.0.0.x).
 */
export async function smtpSession(smtpPort: number, localAddress = '127.0.0.1') {
  const socket = net.connect({ host: '127.0.0.1', port: smtpPort, localAddress });
  socket.on('error', () => undefined); // the server may close a refused or idle connection at any time
  let buffer = '';
  const waiters: ((line: string) => void)[] = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('data', (chunk) => {
    buffer += chunk.toString('latin1');
    let index: number;
    while ((index = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      if (/^\d{3} /.test(line)) waiters.shift()?.(line); // the last line of a (multi-line) reply
    }
  });
  socket.once('close', () => waiters.splice(0).forEach((w) => w('closed')));
  const next = () => new Promise<string>((resolve) => (socket.destroyed ? resolve('closed') : waiters.push(resolve)));
  const greeting = await next();
  return {
    greeting,
    socket,
    closed,
    say(line: string): Promise<string> {
      const reply = next();
      socket.write(`${line}\r\n`);
      return reply;
    },
    /** Sends the message body (dot-stuffed) and the final dot; resolves with the reply to the whole DATA. */
    data(body: string | Buffer): Promise<string> {
      const reply = next();
      socket.write(Buffer.from(Buffer.from(body).toString('latin1').replace(/(^|\r\n)\./g, '$1..'), 'latin1'));
      socket.write('\r\n.\r\n');
      return reply;
    },
    /**
     * Streams `bytes` of message data (lines of 'x', never a lone dot) with backpressure, then the final dot;
     * resolves with the reply to the whole DATA. Nothing of it is held in memory here.
     */
    async streamData(bytes: number): Promise<string> {
      const line = Buffer.from(`${'x'.repeat(998)}\r\n`);
      const chunk = Buffer.concat(Array.from({ length: 64 }, () => line));
      const reply = next();
      socket.write('Subject: big\r\n\r\n');
      for (let sent = 0; sent < bytes && !socket.destroyed; sent += chunk.length) {
        if (!socket.write(chunk)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
      }
      socket.write('\r\n.\r\n');
      return reply;
    },
    close() {
      socket.end();
    },
  };
}

/**
 * One mail of `bytes` of message data over a hand-driven session: the reply to the RCPT when it is refused, else the
 * reply to the whole DATA (what a sender is told about a mail of that size: 250, 452, 552, …).
 */
export async function sendSized(smtpPort: number, to: string, bytes: number): Promise<string> {
  const session = await smtpSession(smtpPort);
  try {
    await session.say('EHLO sender.example');
    await session.say('MAIL FROM:<sender@example.com>');
    const rcpt = await session.say(`RCPT TO:<${to}>`);
    if (!rcpt.startsWith('250')) return rcpt;
    await session.say('DATA');
    return await session.streamData(bytes);
  } finally {
    session.close();
  }
}

/**
 * The mail as it was sent, from its stored raw: without the Return-Path and Received fields the receiving server
 * prepends (local/trace-headers.ts). Fails unless the raw begins with exactly those two.
 */
export function asSent(stored: Buffer): Buffer {
  const text = stored.toString('latin1'); // one character per byte
  const trace = /^Return-Path: <[^\r\n]*>\r\nReceived: [^\r\n]*(?:\r\n[ \t][^\r\n]*)*\r\n/.exec(text);
  if (!trace) throw new Error(`the stored raw does not begin with Return-Path and Received: ${JSON.stringify(text.slice(0, 200))}`);
  return stored.subarray(trace[0].length);
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
