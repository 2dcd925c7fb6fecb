/**
 * A JSON object read from its bytes with each long string cut, without decoding or parsing what is cut: the JSON
 * reader thread's (json-read-thread.ts) way through a message's body object, which can be 40 MB (or 490 MB of escapes
 * for 41 MB of control characters) of which a read takes each body's first 2 M characters. Decoding the whole file
 * and parsing it took 0.7–1.6 s a read here, one read after another. A string value is found whole by looking for its
 * closing quote (Buffer.indexOf, escapes counted) and only its start is decoded; other values are parsed as they
 * are. Anything this does not expect is left to JSON.parse of the whole (the caller's fallback): the result is
 * always what cutStrings(JSON.parse(bytes)) gives.
 */
import { cutStrings } from '../core/message';
import type { CutJson } from '../core/ports';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/** Where the string literal whose contents begin at `from` ends (its closing quote), or -1. */
function closingQuote(bytes: Buffer, from: number): number {
  for (let at = from; ; ) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote < 0) return -1;
    let escapes = 0;
    for (let b = quote - 1; b >= from && bytes[b] === BACKSLASH; b--) escapes++;
    if (escapes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** The end of the value (not a string) starting at `from`: past its brackets, at depth 0, before `,` or `}`. */
function valueEnd(bytes: Buffer, from: number): number {
  let depth = 0;
  for (let at = from; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) {
      at = closingQuote(bytes, at + 1);
      if (at < 0) return -1;
    } else if (byte === 0x5b || byte === 0x7b) depth++;
    else if (byte === 0x5d || byte === 0x7d) {
      if (depth === 0) return at; // the object's own closing brace
      depth--;
    } else if (byte === 0x2c && depth === 0) return at;
  }
  return -1;
}

/** The first `max` characters of the string literal bytes[start, end) (its contents, escaped), decoding no more. */
function stringStart(bytes: Buffer, start: number, end: number, max: number): string {
  if (end - start <= max) return JSON.parse(bytes.toString('utf8', start - 1, end + 1)) as string; // fewer bytes than max: whole
  for (let take = max; ; take *= 2) {
    let cut = Math.min(end, start + take);
    while (cut < end && (bytes[cut] & 0xc0) === 0x80) cut--; // not inside a UTF-8 sequence
    // Not inside an escape (at most 6 bytes, \uXXXX): back off until the literal so far parses.
    for (let back = 0; back <= 6; back++) {
      try {
        const value = JSON.parse(`"${bytes.toString('utf8', start, cut - back)}"`) as string;
        if (value.length >= max || cut >= end) return value;
        break;
      } catch (error) {
        if (back === 6 || cut >= end) throw error;
      }
    }
  }
}

/** As JSON.parse sets a key (`__proto__` too: an own property, never the prototype). */
const own = (target: Record<string, unknown>, key: string, value: unknown) => Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

/** The object in `bytes` with its strings cut to `max` characters; null when its form is not a plain JSON object. */
export function readCutJson(bytes: Buffer, max: number): CutJson | null {
  const value: Record<string, unknown> = {};
  let at = 0;
  const skip = () => {
    while (at < bytes.length && isSpace(bytes[at])) at++;
  };
  skip();
  if (bytes[at++] !== 0x7b) return null;
  skip();
  if (bytes[at] === 0x7d) return { value, cut: [] };
  for (;;) {
    skip();
    if (bytes[at] !== QUOTE) return null;
    const keyEnd = closingQuote(bytes, at + 1);
    if (keyEnd < 0) return null;
    const key = JSON.parse(bytes.toString('utf8', at, keyEnd + 1)) as string;
    at = keyEnd + 1;
    skip();
    if (bytes[at++] !== 0x3a) return null;
    skip();
    if (bytes[at] === QUOTE) {
      const end = closingQuote(bytes, at + 1);
      if (end < 0) return null;
      own(value, key, stringStart(bytes, at + 1, end, max + 1)); // one more than kept: cutStrings then says it was cut
      at = end + 1;
    } else {
      const end = valueEnd(bytes, at);
      if (end < 0) return null;
      own(value, key, JSON.parse(bytes.toString('utf8', at, end)));
      at = end;
    }
    skip();
    if (bytes[at] === 0x7d) break;
    if (bytes[at++] !== 0x2c) return null;
  }
  at++;
  skip();
  return at === bytes.length ? cutStrings(value, max) : null;
}
