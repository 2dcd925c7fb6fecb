/** Codes and links extraction against a corpus of realistic verification mails in several languages. */
import corpus from '../fixtures/verification-corpus.json';
import { convert } from 'html-to-text';
import fc from 'fast-check';
import { CODE, codeMatches, extractCodes, extractLinks } from '../../lambdas/core/extract';
import { expectLinearGrowth } from '../support/growth';

interface Case {
  name: string;
  subject: string;
  text?: string;
  html?: string;
  code: string | null;
  links: string[];
}

describe.each(corpus as Case[])('$name', (mail) => {
  it('finds the most likely code first (or none)', () => {
    // As at ingest: an HTML-only mail's text is derived from its HTML.
    const codes = extractCodes(mail.subject, mail.text ?? convert(mail.html ?? ''));
    if (mail.code === null) expect(codes).toEqual([]);
    else expect(codes[0]).toBe(mail.code);
  });
  it('finds the http(s) links in order', () => {
    expect(extractLinks(mail.html ?? '', mail.text ?? '')).toEqual(mail.links);
  });
});

it('never returns years, prices or parts of addresses and URLs as codes', () => {
  expect(extractCodes('', 'Copyright 2025. Price: $4999. Mail 123456@example.com or see https://x.test/a/654321')).toEqual([]);
});

/**
 * Mail text is written by strangers, and extraction runs on the thread that serves SMTP and the API. Sixteen times the
 * input must cost about sixteen times the time, not 256: a growth check, not a speed measurement, so that a slow
 * machine does not fail it and a quadratic pattern (found: 40 KB of capitals took 2 s) does.
 */
describe.each([
  ['a long run of capitals', (n: number) => 'A'.repeat(n)],
  ['capitals and digits with dashes', (n: number) => 'A1-'.repeat(n / 3)],
  ['digit groups', (n: number) => '111 '.repeat(n / 4)],
  ['unclosed href attributes', (n: number) => 'href="'.repeat(n / 6)],
  ['a URL that never ends', (n: number) => `https://${'a'.repeat(n)}`],
])('on adversarial input: %s', (_name, make) => {
  it('grows linearly with the input (subject, text and HTML alike)', () => {
    const work = (input: string) => {
      extractCodes(input, input);
      extractLinks(input, input);
    };
    expectLinearGrowth(work, make(10_000), make(160_000));
  });
});

/**
 * Codes are looked for only near digits (codeMatches): that must find exactly what a scan of every position finds,
 * on text made of the characters the pattern cares about (digits, capitals, separators, URL characters, letters).
 */
it('finds the same code matches as a scan of every position', () => {
  const everywhere = new RegExp(CODE.source, 'g');
  // Runs of capitals as long as a code and longer, so that a digit far into a run is common.
  const piece = fc.constantFrom('0', '7', '42', '2025', 'A', 'XY', 'ABCD', 'ABCDE', 'ABCDE-', 'QWERTYUIOP', 'a', 'code', ' ', '-', '_', '.', '@', '/', ':', '=', '%', '#', '\n');
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60, size: 'max' }).map((pieces) => pieces.join('')), (text) => {
      const scanned = [...text.matchAll(everywhere)].map((m) => [m.index, m[0]]);
      expect([...codeMatches(text)].map((m) => [m.index, m[0]])).toEqual(scanned);
    }),
    { numRuns: 3_000 },
  );
});
