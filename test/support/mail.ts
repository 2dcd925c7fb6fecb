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
 * A hand-driven SMTP session: `say(line)` sends a command and resolves with the server's (last) reply line.
 * Lets a test stop between RCPT and DATA, send 1,000 RCPTs, or pipeline.
 */
export async function smtpSession(smtpPort: number) {
  const socket = net.connect({ host: '127.0.0.1', port: smtpPort });
  let buffer = '';
  const waiters: ((line: string) => void)[] = [];
  socket.on('data', (chunk) => {
    buffer += chunk.toString('latin1');
    let index: number;
    while ((index = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      if (/^\d{3} /.test(line)) waiters.shift()?.(line); // the last line of a (multi-line) reply
    }
  });
  const next = () => new Promise<string>((resolve) => waiters.push(resolve));
  const greeting = await next();
  return {
    greeting,
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
    close() {
      socket.end();
    },
    socket,
  };
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
