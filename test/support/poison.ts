/**
 * Hostile mail, generated: each once made the stack fail to store a mail it had accepted (issue 11). Built as raw
 * MIME so that the server receives exactly these bytes; and the readings of a process (memory, CPU) that the tests
 * and benchmarks take while it works (from /proc).
 */
import fs from 'node:fs';

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

  /** A Subject of 1.1 MB of control characters: 7 bytes each in Lambda's answer (JSON in JSON), 7.7 MB in all. */
  controlSubject(to: string): string {
    const lines = Array.from({ length: 1_100 }, () => '\u0001'.repeat(1_000));
    return `From: poison@example.com\r\nTo: ${to}\r\nSubject: ${lines.join('\r\n ')}\r\nContent-Type: text/plain\r\n\r\ncontrol subject\r\n`;
  },

  /** A Content-Type field of 1.1 MB (a parameter folded over 1,100 lines): past mailparser's 1 MB for a part's header. */
  hugeContentType(to: string): string {
    const lines = Array.from({ length: 1_100 }, () => 'x'.repeat(1_000));
    return `From: poison@example.com\r\nTo: ${to}\r\nSubject: huge content type\r\nContent-Type: text/plain; x-pad="${lines.join('\r\n ')}"\r\n\r\nhuge content type\r\n`;
  },

  /** 900 KB of unclosed nested tables as the only text of the mail (beside an attachment): its text is derived. */
  nestedTables(to: string): string {
    const html = '<table><tr><td>'.repeat(60_000) + 'Your code is 482913';
    const lines = html.match(/.{1,900}/g)!.join('\r\n');
    return `From: poison@example.com\r\nTo: ${to}\r\nSubject: tables\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${lines}\r\n--b\r\nContent-Type: application/octet-stream; name="a.bin"\r\n\r\nAAAA\r\n--b--\r\n`;
  },

  /** An attachment named in UTF-16 with half a character (a lone surrogate), which URL encoding refuses. */
  halfCharacterName(to: string): string {
    const part = `Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename*=utf-16le''%00%D8a%00\r\n\r\nDATA\r\n`;
    return `From: poison@example.com\r\nTo: ${to}\r\nSubject: half\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b\r\n${part}--b--\r\n`;
  },

  /** 10,000 header fields. */
  manyHeaders(to: string, count = 10_000): string {
    const headers = Array.from({ length: count }, (_, i) => `X-Poison-${i}: value ${i}`);
    return `From: poison@example.com\r\nTo: ${to}\r\nSubject: headers\r\n${headers.join('\r\n')}\r\nContent-Type: text/plain\r\n\r\nmany headers\r\n`;
  },
};

/** The process's resident memory, in MB. */
export const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** CPU seconds the process has used so far, all its threads (user + system). */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14, 15) in clock ticks
}
