/** Codes and links extraction against a corpus of realistic verification mails in several languages. */
import corpus from '../fixtures/verification-corpus.json';
import { convert } from 'html-to-text';
import { extractCodes, extractLinks } from '../../lambdas/core/extract';

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

it('stays linear on adversarial input (1 MB)', () => {
  const nasty = `${'1'.repeat(3)} `.repeat(250_000) + 'href="'.repeat(10_000);
  const started = Date.now();
  extractCodes(nasty, nasty);
  extractLinks(nasty, nasty);
  // A generous bound that only catastrophic backtracking would break; not a speed measurement.
  expect(Date.now() - started).toBeLessThan(5_000);
});
