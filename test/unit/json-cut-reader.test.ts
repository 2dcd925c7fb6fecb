/**
 * The JSON reader thread's way through a body object (lambdas/store/json-cut-reader.ts): the object with its strings
 * cut, decoding none of what is cut. Its result must be exactly cutStrings(JSON.parse(bytes)) for any JSON object:
 * checked over generated ones (escapes, surrogates, nesting, white space), and on the body objects ingest writes.
 */
import fc from 'fast-check';
import { cutStrings } from '../../lambdas/core/message';
import { readCutJson } from '../../lambdas/store/json-cut-reader';

const whole = (bytes: Buffer, max: number) => cutStrings(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>, max);

/** Strings as mail makes them: escapes, control characters, quotes, non-ASCII, pairs and lone surrogates. */
const awkward = fc.array(fc.constantFrom('a', '"', '\\', '\n', '\u0001', '\u001f', 'é', '日', '😀', '\ud83d', '\ude00', '\u2028', '/', 'x'.repeat(40)), { maxLength: 60 }).map((parts) => parts.join(''));

it('gives cutStrings(JSON.parse(bytes)) for any object, whatever its strings and layout', () => {
  const values = fc.oneof(awkward, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(fc.oneof(awkward, fc.integer())), fc.dictionary(awkward, fc.oneof(awkward, fc.integer())));
  fc.assert(
    fc.property(fc.dictionary(awkward, values), fc.integer({ min: 1, max: 300 }), fc.constantFrom(undefined, 2, '\t'), (object, max, indent) => {
      const bytes = Buffer.from(JSON.stringify(object, null, indent));
      expect(readCutJson(bytes, max)).toEqual(whole(bytes, max));
    }),
    { numRuns: 2_000 },
  );
});

it('cuts a long body at its start without decoding the rest, as a body object of 40 MB of escapes', () => {
  const text = '\u0001"\\😀é'.repeat(400_000); // each character escaped: about 5 MB of JSON
  const body = { text, html: `<p>${'&amp; '.repeat(200_000)}</p>`, attachments: [{ id: 'att_1', filename: 'a "b" [c].txt' }], codes: ['482913'], parse_error: null, full_subject: 'x'.repeat(10) };
  const bytes = Buffer.from(JSON.stringify(body));
  for (const max of [1, 2, 3, 1_000, 99_999, 2_000_000, 10_000_000]) expect(readCutJson(bytes, max)).toEqual(whole(bytes, max));
});

it('says it cannot read what is not one plain object, so that the caller parses it whole', () => {
  for (const text of ['[1,2]', '"x"', '{"a":1} {"b":2}', '{"a":1,}', '{"a" 1}', '{"a":"unterminated']) expect(readCutJson(Buffer.from(text), 10)).toBeNull();
  expect(readCutJson(Buffer.from(' { } '), 10)).toEqual({ value: {}, cut: [] });
  const proto = Buffer.from('{"__proto__":{"polluted":true},"a":"b"}');
  expect(readCutJson(proto, 10)).toEqual(whole(proto, 10));
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
