/** The bodies BlobStore.put takes (ports.ts re-exports them). */

/**
 * Bytes a store may hold already: the embedded form's inbound spool keeps a mail's raw bytes durable from before its
 * 250 (`held`: where), and its blob store then names that place instead of writing the bytes again. A store that
 * cannot (S3), or chooses not to, writes `bytes()`: a function, so that an attachment kept as its base64 is never
 * decoded at ingest.
 */
export interface HeldBody {
  held: HeldPlace;
  /** The bytes' length (decoded, for base64). */
  size: number;
  bytes(): Buffer;
}
/** Where held bytes lie: a span of a spool segment, as they are (raw mail) or base64 that decodes to them (an attachment). */
export interface HeldPlace {
  segment: number;
  offset: number;
  length: number;
  encoding?: 'base64';
}
/** An object's bytes as BlobStore.put takes them; chunks (jsonInSlices) are never joined on the embedded form's event loop. */
export type BlobBody = Uint8Array | string | readonly Uint8Array[] | HeldBody;
export const isChunks = (body: BlobBody): body is readonly Uint8Array[] => Array.isArray(body);
export const isHeld = (body: BlobBody): body is HeldBody => typeof body === 'object' && !Array.isArray(body) && !(body instanceof Uint8Array);
/** Bytes held as they are (raw mail): their HeldBody. */
export const heldBytes = (bytes: Buffer, held: Omit<HeldPlace, 'length' | 'encoding'>): HeldBody => ({ held: { ...held, length: bytes.length }, size: bytes.length, bytes: () => bytes });
