/**
 * Codes and links with where each was found (issue 24 item 3): the message's `verification`, and the client's
 * code() and link(), which succeed only when exactly one candidate matches and otherwise list them all.
 */
import corpus from '../fixtures/verification-corpus.json';
import { convert } from 'html-to-text';
import { extractCodes, extractLinks, extractVerification, LINK_TEXT_CHARS, visibleText } from '../../lambdas/core/extract';
import { code, link, TempMailMatchError } from '../../client/src';
import { expectLinearGrowth } from '../support/growth';

const message = (subject: string, text: string, html: string) => ({ id: 'msg_test', subject, verification: extractVerification(subject, text, html) });

describe('verification', () => {
  it('names the source of every code: subject, text and the visible text of the HTML, once per place', () => {
    const v = extractVerification('482913 is your code', 'Your code is 482913.', '<style>.a{color:#5512345}</style><p>Your code is <b>482913</b>. Backup code: 771204</p>');
    // Most likely first: a cue word, six digits, "is" or a colon before it (the subject's "482913 is" has none).
    expect(v.codes).toEqual([
      { value: '482913', source: 'text' },
      { value: '482913', source: 'html' },
      { value: '771204', source: 'html' },
      { value: '482913', source: 'subject' },
    ]);
  });

  it('gives each HTML link its anchor text (tags stripped, entities decoded), an image link its alt, and an href outside an anchor none', () => {
    const v = extractVerification(
      '',
      '',
      '<link href="https://x.test/style.css"><a class="btn" href="https://x.test/v?t=1&amp;u=2">\n  Verify <b>your</b>&nbsp;e-mail &amp; go </a>' +
        '<a href=\'https://x.test/logo\'><img src="l.png" alt="Acme logo"></a><A HREF=https://x.test/help>Help</A>',
    );
    expect(v.links).toEqual([
      { url: 'https://x.test/style.css', text: '', source: 'html' },
      { url: 'https://x.test/v?t=1&u=2', text: 'Verify your e-mail & go', source: 'html' },
      { url: 'https://x.test/logo', text: 'Acme logo', source: 'html' },
      { url: 'https://x.test/help', text: 'Help', source: 'html' },
    ]);
  });

  it('gives each text link the words before it on its line (after the previous link), as html-to-text writes anchors too', () => {
    const v = extractVerification('', 'Hi!\nVerify your e-mail: https://x.test/v?t=1\nhttps://x.test/bare\nHelp [https://x.test/help] or unsubscribe (https://x.test/u).', '');
    expect(v.links).toEqual([
      { url: 'https://x.test/v?t=1', text: 'Verify your e-mail', source: 'text' },
      { url: 'https://x.test/bare', text: '', source: 'text' },
      { url: 'https://x.test/help', text: 'Help', source: 'text' },
      { url: 'https://x.test/u', text: 'or unsubscribe', source: 'text' },
    ]);
  });

  it('ends a text link at a square bracket, as html-to-text writes an image before a link ([src]Text [href]); an IPv6 host keeps its own', () => {
    // An HTML-only mail whose image precedes a link: its text once gave the link https://shop.example/logo.png]More.
    const html = '<p><img src="https://shop.example/logo.png"><a href="https://shop.example/more">More</a></p><p>or http://[::1]:8080/p?q=1]</p>';
    const text = convert(html, { wordwrap: false });
    expect(extractLinks(html, text)).toEqual(['https://shop.example/more', 'https://shop.example/logo.png', 'http://[::1]:8080/p?q=1']);
    expect(extractVerification('', text, '').links.map((l) => l.url)).toEqual(['https://shop.example/logo.png', 'https://shop.example/more', 'http://[::1]:8080/p?q=1']);
  });

  it('lists a link once per url, text and source, and cuts a long text', () => {
    const long = 'word '.repeat(100);
    const v = extractVerification('', 'Go: https://x.test/a', `<a href="https://x.test/a">Go</a><a href="https://x.test/a">Go</a><a href="https://x.test/a">${long}</a>`);
    expect(v.links.map((l) => [l.source, l.text.length])).toEqual([
      ['html', 2],
      ['html', LINK_TEXT_CHARS],
      ['text', 2],
    ]);
  });

  it.each(corpus as { name: string; subject: string; text?: string; html?: string }[])('agrees with codes and links on the corpus: $name', (mail) => {
    const text = mail.text ?? convert(mail.html ?? '');
    const v = extractVerification(mail.subject, text, mail.html ?? '');
    const fromSubjectAndText = [...new Set(v.codes.filter((c) => c.source !== 'html').map((c) => c.value))];
    expect(fromSubjectAndText).toEqual(extractCodes(mail.subject, text));
    expect([...new Set(v.links.map((l) => l.url))]).toEqual(extractLinks(mail.html ?? '', text));
  });

  it('leaves out script and style when reading the HTML for codes', () => {
    expect(visibleText('<p>a</p><script>var code = 123456;</script><STYLE>b{}</STYLE>c')).toBe('a c');
  });
});

describe.each([
  ['anchors that never close', (n: number) => '<a href="https://x.test/a">'.repeat(n / 27)],
  ['anchors closed only at the end', (n: number) => `${'<a href="https://x.test/a">x'.repeat(n / 28)}</a>`],
  ['unclosed tags', (n: number) => '<'.repeat(n)],
  ['href attributes in text', (n: number) => 'href="https://x'.repeat(n / 15)],
  ['style elements that never close', (n: number) => '<style>'.repeat(n / 7)],
  ['links after long runs of spaces', (n: number) => `${' '.repeat(400)}https://x.test `.repeat(n / 415)],
  ['one long line of links', (n: number) => 'https://x.test/a '.repeat(n / 17)],
])('on adversarial input: %s', (_name, make) => {
  it('grows linearly with the input', () => {
    expectLinearGrowth((input: string) => extractVerification(input, input, input), make(10_000), make(160_000));
  });
});

describe('code() and link()', () => {
  const signup = message(
    'Your code is 482913',
    'Your code is 482913.\nVerify your e-mail: https://x.test/verify?t=1\nHelp: https://x.test/help',
    '<p>Your code is <b>482913</b></p><a href="https://x.test/verify?t=1">Verify your e-mail</a> <a href="https://x.test/help">Help</a> <a href="https://x.test/unsub">Unsubscribe</a>',
  );

  it('return the one candidate: a code found in three places is one code; a link by its text, in any case, or a pattern', () => {
    expect(code(signup)).toBe('482913');
    expect(link(signup, { text: 'verify YOUR' })).toBe('https://x.test/verify?t=1');
    expect(link(signup, { text: /^help$/i })).toBe('https://x.test/help');
    expect(link(signup, { url: /unsub/, source: 'html' })).toBe('https://x.test/unsub');
  });

  it('throw, listing every candidate with its sources, when several match', () => {
    let error: unknown;
    try {
      link(signup, { text: /e/i });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TempMailMatchError);
    expect((error as Error).message).toBe(
      'expected exactly 1 link (text matching /e/i) in message msg_test (subject "Your code is 482913"), found 3:\n' +
        '  https://x.test/verify?t=1 (html: "Verify your e-mail"; text: "Verify your e-mail")\n' +
        '  https://x.test/help (html: "Help"; text: "Help")\n' +
        '  https://x.test/unsub (html: "Unsubscribe")',
    );
    expect((error as TempMailMatchError).candidates).toHaveLength(5);
    const two = message('Codes', 'Your code is 111222. Your backup code is 333444.', '');
    expect(() => code(two)).toThrow('expected exactly 1 code in message msg_test (subject "Codes"), found 2:\n  111222 (text)\n  333444 (text)');
    expect(code(two, { match: '3334' })).toBe('333444');
  });

  it('throw, listing what the message has, when none matches', () => {
    expect(() => link(signup, { text: 'Reset password' })).toThrow(
      'expected exactly 1 link (text containing "Reset password") in message msg_test (subject "Your code is 482913"), found none; the links it has:\n  https://x.test/verify?t=1',
    );
    expect(() => code(signup, { source: 'html', match: /^\d{8}$/ })).toThrow(/found none; the codes it has:\n {2}482913 \(subject; text; html\)$/);
    expect(() => code(message('Hello', 'no digits here', ''))).toThrow('expected exactly 1 code in message msg_test (subject "Hello"), found none: the message has no code');
  });
});
