/**
 * Hostile mail, generated: each once made the stack fail to store a mail it had accepted (issue 11). Built as raw
 * MIME so that the server receives exactly these bytes; and the raw SMTP client and process readings to send it with.
 */
import fs from 'node:fs';
import net from 'node:net';

export const poison = {
  /** A Subject of about 450 KB, folded into 76-character lines. */
  longSubject(to: string): string {
    const words = Array.from({ length: 450_000 / 76 }, (_, i) => `w${i}`.padEnd(74, 'x'));
    return `From: Poison <poison@example.com>\r\nTo: ${to}\r\nSubject: ${words.join('\r\n ')}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nthe subject is long\r\n`;
  },

  /** An HTML body with 25,000 distinct links. */
  manyLinks(to: string, count = 25_000): string {
    const anchors = Array.from({ length: count }, (_, i) => `<a href="https://links.example.com/p/${i}?ref=poison">link ${i}</a><br>`);
    // Lines stay under 998 characters, as SMTP requires.
    return `From: poison@example.com\r\nTo: ${to}\r\nSubject: links\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body>\r\n${anchors.join('\r\n')}\r\n</body></html>\r\n`;
  },

  /** 990 attachments, each named with 400 characters. */
  manyAttachments(to: string, count = 990): string {
    const parts = Array.from({ length: count }, (_, i) => {
      const name = `${String(i).padStart(4, '0')}-${'n'.repeat(391)}.txt`;
      return `--b\r\nContent-Type: text/plain; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\n\r\nattachment ${i}\r\n`;
    });
    return `From: poison@example.com\r\nTo: ${to}\r\nSubject: attachments\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n${parts.join('')}--b--\r\n`;
  },

  /** 10,000 header fields. */
  manyHeaders(to: string, count = 10_000): string {
    const headers = Array.from({ length: count }, (_, i) => `X-Poison-${i}: value ${i}`);
    return `From: poison@example.com\r\nTo: ${to}\r\nSubject: headers\r\n${headers.join('\r\n')}\r\nContent-Type: text/plain\r\n\r\nmany headers\r\n`;
  },
};

/** A raw SMTP client that waits for each reply; `localAddress` picks the client address (127.0.0.x). */
export async function rawClient(port: number, localAddress = '127.0.0.1') {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress });
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
      if (/^\d{3} /.test(line)) waiters.shift()?.(line);
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

/** The process's resident memory, in MB. */
export const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** CPU seconds (user + system) the process has used. */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14, 15) in clock ticks
}
