/**
 * Text made of a mail's HTML (for a mail without a text part) runs on the thread that serves SMTP and the API, on
 * HTML written by strangers: it must cost time in proportion to the HTML, whatever its nesting or its broken tags.
 * Found: 900 KB of unclosed nested tables held the stack for 14 s, and 1 MB of text followed by 40,000 `<style>`
 * tags for 27 s.
 */
import { nestsDeeperThan, parseMail, stripTags, textOfHtml } from '../../lambdas/ingest/parse-mail';
import { expectLinearGrowth } from '../support/growth';

/** A mail that is nothing but `html`. */
const htmlMail = (html: string) => Buffer.from(`From: a@example.com\r\nSubject: s\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`);

/** Sixteen times the HTML must cost about sixteen times the time (support/growth.ts). */
describe.each([
  ['unclosed nested tables', (n: number) => '<table><tr><td>'.repeat(n / 15)],
  ['unclosed nested divs', (n: number) => '<div>'.repeat(n / 5)],
  ['nested and closed, 200 deep', (n: number) => `${'<div>'.repeat(200)}x${'</div>'.repeat(200)}`.repeat(Math.ceil(n / 2_200))],
  ['unclosed style tags', (n: number) => '<style>'.repeat(n / 7)],
  ['unclosed style tags after text', (n: number) => `${'a'.repeat(n / 2)}${'<style>'.repeat(n / 14)}`],
  ['tags that never close', (n: number) => '<a'.repeat(n / 2)],
  ['a table of ordinary cells', (n: number) => `<table>${'<tr><td><b>cell</b> <a href="https://x.test/">link</a></td></tr>'.repeat(n / 60)}</table>`],
])('textOfHtml on %s', (_name, make) => {
  it('grows linearly with the HTML', () => expectLinearGrowth(textOfHtml, make(25_000), make(400_000)));
});

describe('nestsDeeperThan', () => {
  it('counts open elements as an HTML parser keeps them', () => {
    expect(nestsDeeperThan('<div>'.repeat(3), 2)).toBe(true);
    expect(nestsDeeperThan('<div>'.repeat(2), 2)).toBe(false);
    // closed elements, void elements and elements closed by their next sibling open no level
    expect(nestsDeeperThan('<div></div>'.repeat(10), 2)).toBe(false);
    expect(nestsDeeperThan('<br><img src=x><hr>'.repeat(10), 2)).toBe(false);
    expect(nestsDeeperThan('<table>' + '<tr><td>x'.repeat(50) + '</table>', 2)).toBe(false);
    // an end tag closes down to the nearest open element of its name; a stray one closes nothing
    expect(nestsDeeperThan('<div><span><b></div>'.repeat(5), 3)).toBe(false);
    expect(nestsDeeperThan('<div></i></i></i><div><div>', 2)).toBe(true);
    // markup in comments is not markup
    expect(nestsDeeperThan(`<!--${'<div>'.repeat(10)}-->`, 2)).toBe(false);
  });
});

describe('stripTags', () => {
  it('drops tags, and script and style elements with their content; a lone < is text', () => {
    expect(stripTags('a<style>x{}</style>b<script type="t">y</SCRIPT >c<p>d&nbsp;e</p> 1 < 2')).toBe('a b c d e 1 < 2');
    expect(stripTags('<style>unclosed <b>bold</b>')).toBe('unclosed bold');
    expect(stripTags('<p>Your code is <b>482913</b></p>')).toBe('Your code is 482913');
  });

  it('decodes character references as html-to-text does, the text past its 512 KB too', async () => {
    expect(stripTags('<p>Tom &amp; Jerry &lt;3 caf&eacute; &#x41;&#66; &copy; &unknown; &amp</p>')).toBe('Tom & Jerry <3 café AB © &unknown; &');
    // An HTML-only mail past html-to-text's limit is made text by stripTags: the same words as a short one.
    const line = '<p>Sign in &amp; confirm: <a href="https://x.test/?a=1&amp;b=2">caf&eacute;</a></p>\n';
    const short = await parseMail(htmlMail(line));
    const long = await parseMail(htmlMail(line.repeat(Math.ceil((600 * 1024) / line.length))));
    expect(short.text).toContain('Sign in & confirm: café');
    expect(long.text.startsWith('Sign in & confirm: café')).toBe(true);
    expect(long.text).not.toContain('&amp;');
  });
});

it('gives a mail that is nothing but HTML its text, and deeply nested HTML its text too', async () => {
  const plain = await parseMail(htmlMail('<html><body><p>Your code is <b>482913</b></p><a href="https://x.test/v">verify</a></body></html>'));
  expect(plain.text).toContain('Your code is 482913');
  expect(plain.parse_error).toBeNull();
  const deep = await parseMail(htmlMail(`${'<div>'.repeat(5_000)}Your code is 482913`));
  expect(deep.text).toBe('Your code is 482913');
  expect(deep.parse_error).toBeNull();
});
