/**
 * CRC-32 (zlib's, node:zlib `crc32`) of bytes joined, from the CRCs of their parts: the spool's record checksum
 * covers the envelope, the trace fields and the data in that order, but a large mail's data is checksummed as it
 * arrives (a chunk at a time, memory the event loop has just read) and the trace fields exist only at its end. Reading
 * 38 MB again on the event loop to checksum it took 100–140 ms a mail here, most of it first touches of memory the
 * thread pool had written (issue 27 item 2). node:zlib has no crc32_combine; this is zlib's (crc32.c), in the
 * polynomial arithmetic modulo the CRC's generator that zlib uses: crc(A‖B) = crc(A)·x^(8·|B|) + crc(B).
 */

/** The CRC-32 polynomial, reflected (zlib's POLY). */
const POLY = 0xedb88320;

/** a·b modulo the generator, both reflected (zlib's multmodp). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the generator, k = 0..31 (zlib's x2n_table). */
const X2N: number[] = [];
for (let k = 0, p = 0x40000000; k < 32; k++) {
  X2N.push(p);
  p = multModP(p, p);
}

/** x^(n·2^k) modulo the generator (zlib's x2nmodp). */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n > 0) {
    if (n % 2 === 1) p = multModP(X2N[k & 31], p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A‖B from crc(A), crc(B) and B's length in bytes (zlib's crc32_combine). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multModP(x2nModP(lengthB, 3), crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
