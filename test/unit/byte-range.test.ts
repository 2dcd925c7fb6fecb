/**
 * A download's Range header as S3 reads it (lambdas/core/byte-range.ts): the edges the integration test
 * (test/integration/download-ranges.test.ts) does not reach, such as an empty object and surrounding blanks.
 */
import { byteRange, contentRange } from '../../lambdas/core/byte-range';

it.each([
  [undefined, 10, { kind: 'whole' }],
  ['', 10, { kind: 'whole' }],
  ['bytes=-', 10, { kind: 'whole' }],
  ['bytes=0-4', 10, { kind: 'part', start: 0, end: 4 }],
  [' bytes=3- ', 10, { kind: 'part', start: 3, end: 9 }],
  ['bytes=9-9', 10, { kind: 'part', start: 9, end: 9 }],
  ['bytes=2-99999999999999999999', 10, { kind: 'part', start: 2, end: 9 }],
  ['bytes=-3', 10, { kind: 'part', start: 7, end: 9 }],
  ['bytes=-10', 10, { kind: 'part', start: 0, end: 9 }],
  ['bytes=-11', 10, { kind: 'part', start: 0, end: 9 }],
  ['bytes=10-', 10, { kind: 'unsatisfiable' }],
  ['bytes=-0', 10, { kind: 'unsatisfiable' }],
  ['bytes=0-', 0, { kind: 'unsatisfiable' }],
  ['bytes=-5', 0, { kind: 'unsatisfiable' }],
  ['bytes=5-4', 10, { kind: 'whole' }],
  ['bytes=0-1,3-4', 10, { kind: 'whole' }],
  ['bytes=0-1, 3-4', 10, { kind: 'whole' }],
  ['Bytes=0-4', 10, { kind: 'part', start: 0, end: 4 }],
  ['bytes=+1-4', 10, { kind: 'whole' }],
  ['bytes=1.5-4', 10, { kind: 'whole' }],
])('reads %p of a %d-byte object as %p', (header, size, answer) => {
  expect(byteRange(header, size)).toEqual(answer);
});

it('writes Content-Range for a 206 and for a 416', () => {
  expect(contentRange(10, { start: 2, end: 5 })).toBe('bytes 2-5/10');
  expect(contentRange(10)).toBe('bytes */10');
});
