/**
 * The html and accessibility sections (issue 25) on the real HTML pass (htmlparser2, doiuse-email's caniemail data):
 * each rule's flaw and its pass, the per-family score, and the bounds on hostile HTML (10,000 links, 2 MB of
 * nesting, malformed CSS): each answers with what it read and why it stopped, never a throw, and lets the event loop
 * turn while it works.
 */
import { contrastRatio, parseColor } from '../../lambdas/core/checks/contrast';
import { familyScore, htmlSection, type FeatureReport } from '../../lambdas/core/checks/html';
import type { Finding } from '../../lambdas/core/checks/model';
import { inspectHtml, MAX_HTML_ELEMENTS } from '../../lambdas/checks/html-scan';

const later = () => Date.now() + 60_000;
const result = (findings: Finding[], id: string) => findings.filter((f) => f.id === id).map((f) => f.result);
const detail = (findings: Finding[], id: string) => findings.find((f) => f.id === id)!.detail;

describe('html: caniemail features per client family', () => {
  it('names a feature a family lacks, with the clients, and scores the families', async () => {
    const found = await inspectHtml('<html><head><style>a:hover{color:red}</style></head><body><video src="v.mp4"></video></body></html>', later());
    expect(found.features.used).toEqual(expect.arrayContaining([':hover', '<video> element', '<style> element']));
    expect(found.features.gaps[':hover']['gmail.ios']).toBe('none');
    const section = htmlSection(found.features, found.featuresCutShort);
    expect(section.status).toBe('complete');
    const video = section.findings.find((f) => f.id === 'feature' && f.detail.startsWith('`<video> element`'))!;
    expect(video.result).toBe('fail');
    expect(video.detail).toMatch(/not supported by .*gmail \(desktop-webmail, ios, android, mobile-webmail\)/);
    expect(result(section.findings, 'score-gmail')).toEqual(['fail']);
    // Apple Mail on iOS plays video only in part: a warning, not a failure.
    expect(result(section.findings, 'score-apple-mail')).toEqual(['warn']);
    expect(detail(section.findings, 'score-apple-mail')).toMatch(/^apple-mail: \d+ % of \d+ features used; partly supports `<video> element`$/);
  });

  it('scores a family by the share of its clients supporting each feature used, a partial support counting half', () => {
    const report: FeatureReport = {
      used: ['a', 'b'],
      gaps: { a: { 'x.one': 'none', 'x.two': 'partial' } },
      clients: ['x.one', 'x.two', 'y.one'],
      malformedCss: [],
    };
    // a: (0 + 0.5) / 2 = 0.25; b: 1. Mean 0.625.
    expect(familyScore(report, 'x')).toBe(63);
    expect(familyScore(report, 'y')).toBe(100);
    expect(result(htmlSection(report, null).findings, 'score-x')).toEqual(['fail']);
    expect(result(htmlSection({ ...report, gaps: { a: { 'x.two': 'partial' } } }, null).findings, 'score-x')).toEqual(['warn']);
  });

  it('malformed CSS is a warning with where it was, the rest still checked, and nothing throws', async () => {
    const css = '<style>.a{color:red;;; {{ } @media {{{ .b:hover{display:flex}</style><p style="color:;;{{}}:::display:flex">x</p><video></video>';
    const found = await inspectHtml(css, later());
    const section = htmlSection(found.features, found.featuresCutShort);
    expect(result(section.findings, 'css-parse')).toEqual(['warn']);
    expect(detail(section.findings, 'css-parse')).toMatch(/style attribute of a <p>|<style> element/);
    expect(found.features.used).toContain('<video> element');
  });

  it('CSS nested deep enough to exhaust the CSS parser is recorded, not thrown', async () => {
    const found = await inspectHtml(`<style>${'@media a{'.repeat(30_000)}</style><video></video>`, later());
    expect(found.features.malformedCss.join(' ')).toMatch(/<style> element/);
    expect(found.features.used).toContain('<video> element');
  });
});

describe('accessibility: the rules decidable without rendering', () => {
  const flawed =
    '<html><body><h1>T</h1><h3>skipped</h3><table><tr><td style="color:#999999;background-color:#aaaaaa">grey on grey</td></tr></table>' +
    '<img src="logo.png"><a href="https://x.example/a"></a><a href="https://x.example/b"><img src="b.png" alt="Buy"></a></body></html>';
  const good =
    '<html lang="en"><body><h1>T</h1><h2>S</h2><table role="presentation"><tr><td style="color:#000;background:#fff url(x.png)">ok</td></tr></table>' +
    '<table><tr><th>Item</th></tr><tr><td>data table</td></tr></table><img src="spacer.gif" alt=""><a href="https://x.example" aria-label="Home"></a></body></html>';

  it('finds each flaw', async () => {
    const { accessibility: a } = await inspectHtml(flawed, later());
    expect(result(a, 'lang')).toEqual(['fail']);
    expect(result(a, 'img-alt')).toEqual(['fail']);
    expect(detail(a, 'img-alt')).toBe('1 of 2 images without an alt attribute: logo.png');
    expect(result(a, 'layout-table')).toEqual(['fail']);
    expect(result(a, 'link-name')).toEqual(['fail']);
    expect(detail(a, 'link-name')).toBe('1 of 2 links without text, an image alt, aria-label or title: https://x.example/a');
    expect(result(a, 'heading-order')).toEqual(['warn']);
    expect(detail(a, 'heading-order')).toContain('h1 → h3');
    expect(result(a, 'contrast')).toEqual(['fail']);
    expect(detail(a, 'contrast')).toContain('#999999 on #aaaaaa');
  });

  it('passes the same rules done right (a data table needs no role; alt="" is decorative)', async () => {
    const { accessibility: a, cutShort } = await inspectHtml(good, later());
    expect(cutShort).toBeNull();
    expect(a.map((f) => [f.id, f.result])).toEqual([
      ['lang', 'pass'],
      ['img-alt', 'pass'],
      ['layout-table', 'pass'],
      ['link-name', 'pass'],
      ['heading-order', 'pass'],
      ['contrast', 'pass'],
    ]);
  });

  it('computes WCAG contrast from inline colors it can read, and none from those it cannot', async () => {
    expect(contrastRatio(parseColor('#777')!, parseColor('white')!)).toBeCloseTo(4.48, 2);
    expect(contrastRatio(parseColor('rgb(0, 0, 0)')!, parseColor('#ffffff')!)).toBeCloseTo(21, 5);
    expect(parseColor('hsl(0, 0%, 50%)')).toBeNull();
    const { accessibility: a } = await inspectHtml('<p style="color: hsl(0,0%,50%)">x</p>', later());
    expect(result(a, 'contrast')).toEqual(['none']);
    // Inherited: the color from the table cell, the background from the table.
    const inherited = await inspectHtml('<table bgcolor="#ffffff"><tr><td style="color:#eeeeee"><span>faint</span></td></tr></table>', later());
    expect(result(inherited.accessibility, 'contrast')).toEqual(['fail']);
  });
});

describe('hostile HTML: bounded, partial with the reason, and the event loop keeps turning', () => {
  /** Counts turns of the event loop while `work` runs: a timer that fires before it finishes shows it yielded. */
  async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const value = await work();
    done = true;
    return { value, turns };
  }

  it('10,000 links: the first elements up to the cap are read, the sections say so', async () => {
    const html = `<html lang="en"><body>${Array.from({ length: 10_000 }, (_, i) => `<a href="https://x.example/${i}">link ${i}</a>`).join('')}</body></html>`;
    const { value: found, turns } = await turnsDuring(() => inspectHtml(html, later()));
    expect(found.cutShort).toBe(`the HTML has more than ${MAX_HTML_ELEMENTS} elements: the first ${MAX_HTML_ELEMENTS} were checked`);
    expect(found.featuresCutShort).toBe(found.cutShort);
    expect(detail(found.accessibility, 'link-name')).toMatch(/^\d+ links, none without/);
    expect(turns).toBeGreaterThan(0);
  });

  it('2 MB of nested HTML: no stack overflow, the element cap holds', async () => {
    const html = '<div>'.repeat(400_000);
    expect(html.length).toBe(2_000_000);
    const { value: found, turns } = await turnsDuring(() => inspectHtml(html, later()));
    expect(found.cutShort).toContain(`more than ${MAX_HTML_ELEMENTS} elements`);
    expect(turns).toBeGreaterThan(0);
  });

  it('HTML over the character cap is read up to it', async () => {
    const found = await inspectHtml(`<p>${'x'.repeat(5_000)}</p>`, later(), { maxChars: 1_000 });
    expect(found.cutShort).toBe('the HTML has 5007 characters: the first 1000 were checked');
  });

  it('a spent deadline stops the pass with the reason', async () => {
    const found = await inspectHtml('<p>x</p>'.repeat(100), Date.now() - 1);
    expect(found.cutShort).toBe('the time budget of the HTML checks was spent before the whole HTML was checked');
  });
});
