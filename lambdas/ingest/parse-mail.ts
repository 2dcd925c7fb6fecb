/**
 * Raw MIME → the parts a message is made of, with mailparser. It never throws and never hangs: malformed or
 * pathological input falls back to a minimal header/body split, with a warning, so a message is always stored.
 */
import { simpleParser, type AddressObject, type ParsedMail as MailparserResult } from 'mailparser';

export interface ParsedAttachment {
  filename: string | null;
  content_type: string;
  content_id: string | null;
  content: Buffer;
  size: number;
}

export interface ParsedMail {
  /** The From header's address, else the envelope sender, else ''. */
  from: string;
  from_name: string | null;
  subject: string;
  /** The text/plain part, or text derived from the HTML when there is none. */
  text: string;
  /** The text/html part, or ''. */
  html: string;
  attachments: ParsedAttachment[];
  to: string[];
  message_id: string | null;
  date: string | null;
  warnings: string[];
}

export interface ParseOptions {
  envelopeFrom?: string;
  /** Budget for mailparser; past it the minimal parse is used. Defaults to 5 s plus 1 s per MB. */
  timeoutMs?: number;
}

function firstAddress(value: AddressObject | AddressObject[] | undefined): { address: string; name: string | null } | null {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  for (const group of list) {
    for (const entry of group.value) {
      if (entry.address) return { address: entry.address.toLowerCase(), name: entry.name || null };
    }
  }
  return null;
}

function addresses(value: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list.flatMap((group) => group.value.map((v) => v.address ?? '').filter(Boolean));
}

function fromMailparser(mail: MailparserResult, options: ParseOptions): ParsedMail {
  const from = firstAddress(mail.from);
  return {
    from: from?.address ?? options.envelopeFrom ?? '',
    from_name: from?.name ?? null,
    subject: mail.subject ?? '',
    text: mail.text ?? '',
    html: typeof mail.html === 'string' ? mail.html : '',
    attachments: mail.attachments.map((a) => ({
      filename: a.filename ?? null,
      content_type: a.contentType || 'application/octet-stream',
      content_id: a.cid ?? null,
      content: a.content,
      size: a.content.length,
    })),
    to: addresses(mail.to),
    message_id: mail.messageId ?? null,
    date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : null,
    warnings: [],
  };
}

/** RFC 2047 encoded words (B and Q), in any charset Node's TextDecoder knows. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?*]+)(?:\*[^?]*)?\?([bBqQ])\?([^?]*)\?=/g, (whole, charset: string, encoding: string, text: string) => {
      try {
        const bytes =
          encoding.toUpperCase() === 'B'
            ? Buffer.from(text, 'base64')
            : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1');
        return new TextDecoder(charset.toLowerCase()).decode(bytes);
      } catch {
        return whole;
      }
    });
}

/** The last resort: unfolded headers and the body as text. Linear time, never throws. */
export function minimalParse(raw: Buffer, options: ParseOptions, warning: string): ParsedMail {
  const text = raw.toString('utf8');
  const split = text.search(/\r?\n\r?\n/);
  const head = split >= 0 ? text.slice(0, split) : text;
  const body = split >= 0 ? text.slice(split).replace(/^\r?\n\r?\n/, '') : '';
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) {
      const name = line.slice(0, colon).trim().toLowerCase();
      if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
    }
  }
  const fromHeader = decodeWords(headers.get('from') ?? '');
  const address = /<([^<>@\s]+@[^<>\s]+)>/.exec(fromHeader)?.[1] ?? /[^\s<>"]+@[^\s<>"]+/.exec(fromHeader)?.[0];
  const name = fromHeader.replace(/<[^>]*>/, '').replace(/"/g, '').trim();
  return {
    from: address?.toLowerCase() ?? options.envelopeFrom ?? '',
    from_name: address && name && name !== address ? name : null,
    subject: decodeWords(headers.get('subject') ?? ''),
    text: body.length > 2_000_000 ? body.slice(0, 2_000_000) : body,
    html: '',
    attachments: [],
    to: [],
    message_id: headers.get('message-id') ?? null,
    date: null,
    warnings: [warning],
  };
}

export async function parseMail(raw: Buffer, options: ParseOptions = {}): Promise<ParsedMail> {
  const budget = options.timeoutMs ?? 5_000 + Math.ceil(raw.length / 1_048_576) * 1_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const parsed = await Promise.race([
      simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`mailparser took longer than ${budget} ms`)), budget);
      }),
    ]);
    return fromMailparser(parsed, options);
  } catch (error) {
    return minimalParse(raw, options, `parsed minimally: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
