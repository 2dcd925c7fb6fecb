/**
 * The embedded form's inbound spool files: written by the spool (local/inbound-spool.ts), which holds each mail there
 * from before its 250 until it is stored, and read by the embedded blob store (lambdas/store/sqlite-held-segments.ts),
 * which keeps a stored message's raw mail where the spool put it instead of writing it a second time.
 * - `segment-<n>`: taking appends, or holding mail not yet stored in full: replayed at the next start;
 * - `stored-<n>`: every mail in it stored (renamed so by the spool): never replayed; removed by the store once no
 *   object names it.
 * A segment's number is never used twice: it is at least the millisecond it was opened at and more than any before
 * it, so an object can only ever name the bytes it was stored with.
 */
import path from 'node:path';

/** The spool's folder inside the data folder. */
export const INBOUND_SPOOL_DIR = 'inbound-spool';
export const inboundSpoolDir = (dataDir: string) => path.join(dataDir, INBOUND_SPOOL_DIR);

export type SegmentState = 'segment' | 'stored';
const DIGITS = 13;
export const segmentFileName = (state: SegmentState, number: number) => `${state}-${String(number).padStart(DIGITS, '0')}`;

/** A spool file's state and number; null for any other name. Numbers of 10 digits are older versions' names. */
export function parseSegmentFileName(name: string): { state: SegmentState; number: number; canonical: boolean } | null {
  const match = /^(segment|stored)-(\d{10,13})$/.exec(name);
  if (!match) return null;
  return { state: match[1] as SegmentState, number: Number(match[2]), canonical: match[2].length === DIGITS };
}
