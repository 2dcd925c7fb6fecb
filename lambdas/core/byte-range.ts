/**
 * A download's `Range` header read as S3 reads it on a pre-signed URL, so that a client resuming a download or
 * reading part of an attachment sees the same answers from the local gateway's links as from S3 (RFC 9110 section
 * 14): one byte range is served (206), a range that starts past the end is unsatisfiable (416), and anything else
 * (several ranges, which S3 does not serve, another unit, a malformed or reversed range) is ignored: the whole object.
 * Not the `range-parser` package: it calls a suffix longer than the object and a reversed range unsatisfiable, where
 * RFC 9110 and S3 serve the whole object.
 */

/** Bytes `start` to `end` of an object, both included. */
export interface ByteSpan {
  start: number;
  end: number;
}

export type RangeAnswer = { kind: 'whole' } | ({ kind: 'part' } & ByteSpan) | { kind: 'unsatisfiable' };

const ONE_RANGE = /^bytes=(\d*)-(\d*)$/i; // RFC 9110: range units compare case-insensitively

/** The part of an object of `size` bytes that `header` asks for. */
export function byteRange(header: string | undefined, size: number): RangeAnswer {
  const match = ONE_RANGE.exec((header ?? '').trim());
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'whole' };
  const [first, last] = [match[1], match[2]];
  if (first === '') {
    // A suffix: the last N bytes (all of them when N is the size or more); the last 0 bytes are none.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

/** The value of a 206's Content-Range, or of a 416's (`span` undefined). */
export const contentRange = (size: number, span?: ByteSpan): string => (span ? `bytes ${span.start}-${span.end}/${size}` : `bytes */${size}`);
