/**
 * A message's body object as JSON bytes without holding the event loop (issue 27 item 2). A 38 MB text made into
 * JSON in one call, then into UTF-8 in another, held the local stack's one thread about a second each on a loaded
 * machine (and its garbage collector after): every API request and SMTP session waited. Here each long string field
 * is encoded in slices of JSON_SLICE_CHARS characters, with a turn of the event loop between two slices, and the bytes
 * stay as those slices (the blob store writes them one after another). The bytes are exactly JSON.stringify's.
 * A body held off this thread (HeldText: a large mail parsed on the local stack's parse thread) is its JSON bytes as
 * they are: this thread never holds it as a string.
 */
import { isHeld } from './mail-text';


/** Characters of one string field encoded per turn of the event loop. */
export const JSON_SLICE_CHARS = 256 * 1024;

const HIGH_SURROGATE = /[\ud800-\udbff]/;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The UTF-8 bytes of JSON.stringify(value), in chunks, for a flat object whose large fields are strings or held texts
 * (a held text is written as the string it holds; other fields are encoded whole: they are bounded). Fields whose
 * value is undefined are left out, as JSON.stringify does.
 */
export async function jsonInSlices(value: object, sliceChars = JSON_SLICE_CHARS): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let pending = '{';
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
    pending += `${pending === '{' ? '' : ','}${JSON.stringify(key)}:`;
    if (isHeld(field)) {
      chunks.push(Buffer.from(`${pending}"`), Buffer.from(field.json.buffer, field.json.byteOffset, field.json.byteLength));
      pending = '"';
      continue;
    }
    if (typeof field !== 'string' || field.length <= sliceChars) {
      pending += JSON.stringify(field);
      continue;
    }
    chunks.push(Buffer.from(`${pending}"`));
    pending = '';
    for (let at = 0; at < field.length; ) {
      // Never between the two halves of a surrogate pair: each half alone would be escaped (\udXXX), not the character.
      let end = Math.min(at + sliceChars, field.length);
      if (end < field.length && HIGH_SURROGATE.test(field[end - 1])) end--;
      chunks.push(Buffer.from(JSON.stringify(field.slice(at, end)).slice(1, -1)));
      at = end;
      await turn();
    }
    pending = '"';
  }
  chunks.push(Buffer.from(`${pending}}`));
  return chunks;
}
