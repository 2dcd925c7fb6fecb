/**
 * The accessibility section: the rules of axe-core (the viewer's scan in Chromium, test/e2e) that hold for mail and
 * can be decided from the HTML alone, without rendering: the document's language (axe html-has-lang), images without
 * alt (image-alt), layout tables not marked presentational (layout-table), links without a name (link-name), heading
 * levels that skip (heading-order) and the contrast of text whose colors are stated inline (color-contrast). It reads
 * the HTML as a stream of elements (HtmlVisitor) and keeps counts and a few examples, never the tree.
 */
import { backgroundColor, contrastRatio, hexOf, MIN_CONTRAST, parseColor, type Rgb } from './contrast';
import type { Finding } from './model';
import { styleDeclarations, type HtmlVisitor } from './visitor';

/** Examples kept per rule (the detail names them). */
const EXAMPLES = 3;
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const PRESENTATIONAL = new Set(['presentation', 'none']);

interface Open {
  name: string;
  color?: Rgb;
  background?: Rgb;
}
interface TableState {
  presentational: boolean;
  dataMarkup: boolean;
}
interface LinkState {
  href: string;
  named: boolean;
}

const short = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n)}…` : s);

class Tally {
  count = 0;
  bad = 0;
  examples: string[] = [];
  add(ok: boolean, example: string): void {
    this.count++;
    if (ok) return;
    this.bad++;
    if (this.examples.length < EXAMPLES) this.examples.push(example);
  }
  get listed(): string {
    return `${this.examples.join(', ')}${this.bad > this.examples.length ? ', …' : ''}`;
  }
}

export class AccessibilityAudit implements HtmlVisitor {
  private lang: string | null | undefined;
  private readonly stack: Open[] = [];
  private readonly tables: TableState[] = [];
  private link: LinkState | null = null;
  readonly images = new Tally();
  readonly layoutTables = new Tally();
  readonly links = new Tally();
  private readonly headings: number[] = [];
  private readonly skips: string[] = [];
  private worst: { ratio: number; text: string; fg: Rgb; bg: Rgb } | null = null;
  private contrastChecked = 0;
  private lowContrast = 0;
  private inStyle = 0;

  open(name: string, attributes: Readonly<Record<string, string>>): void {
    if (name === 'html' && this.lang === undefined) this.lang = attributes.lang?.trim() || null;
    if (name === 'style' || name === 'script' || name === 'title') this.inStyle++;
    const parent = this.stack[this.stack.length - 1];
    const style = styleDeclarations(attributes.style ?? '');
    const color = parseColor(style.get('color') ?? attributes.color ?? '') ?? parent?.color;
    const bgValue = style.get('background-color') ?? style.get('background') ?? attributes.bgcolor ?? '';
    const background = backgroundColor(bgValue) ?? parent?.background;
    if (!VOID.has(name)) this.stack.push({ name, color, background });

    if (name === 'img') {
      const src = short(attributes.src ?? '(no src)');
      this.images.add('alt' in attributes || attributes.role === 'presentation' || attributes['aria-hidden'] === 'true', src);
      if (this.link && (attributes.alt ?? '').trim()) this.link.named = true;
    } else if (name === 'table') {
      this.tables.push({ presentational: PRESENTATIONAL.has((attributes.role ?? '').trim().toLowerCase()), dataMarkup: false });
    } else if ((name === 'th' || name === 'caption' || (name === 'td' && 'headers' in attributes)) && this.tables.length) {
      this.tables[this.tables.length - 1].dataMarkup = true;
    } else if (name === 'a' && 'href' in attributes) {
      const label = (attributes['aria-label'] ?? attributes.title ?? '').trim();
      this.link = { href: short(attributes.href), named: label.length > 0 };
    } else if (/^h[1-6]$/.test(name)) {
      const level = Number(name[1]);
      const previous = this.headings[this.headings.length - 1];
      if (previous !== undefined && level > previous + 1 && this.skips.length < EXAMPLES) this.skips.push(`h${previous} → h${level}`);
      this.headings.push(level);
    }
  }

  text(text: string): void {
    if (this.inStyle > 0 || !text.trim()) return;
    if (this.link) this.link.named = true;
    const top = this.stack[this.stack.length - 1];
    if (!top || (!top.color && !top.background)) return;
    // One stated, the other the default mail clients render in light mode: black text on white.
    const fg = top.color ?? ([0, 0, 0] as const);
    const bg = top.background ?? ([255, 255, 255] as const);
    const ratio = contrastRatio(fg, bg);
    this.contrastChecked++;
    if (ratio < MIN_CONTRAST) {
      this.lowContrast++;
      if (!this.worst || ratio < this.worst.ratio) this.worst = { ratio, text: short(text.trim(), 40), fg, bg };
    }
  }

  close(name: string): void {
    if (name === 'style' || name === 'script' || name === 'title') this.inStyle = Math.max(0, this.inStyle - 1);
    if (name === 'table') {
      const table = this.tables.pop();
      if (table && !table.dataMarkup) this.layoutTables.add(table.presentational, `table ${this.layoutTables.count + 1}`);
    } else if (name === 'a' && this.link) {
      this.links.add(this.link.named, this.link.href);
      this.link = null;
    }
    if (VOID.has(name)) return;
    // Close up to the matching element (a parser's implied closes come in order; a stray close is ignored).
    const at = this.stack.map((o) => o.name).lastIndexOf(name);
    if (at >= 0) this.stack.length = at;
  }

  findings(): Finding[] {
    const findings: Finding[] = [];
    findings.push(
      this.lang
        ? { id: 'lang', result: 'pass', detail: `the <html> element has lang="${short(this.lang, 20)}"` }
        : { id: 'lang', result: 'fail', detail: this.lang === null ? 'the <html> element has no lang attribute: screen readers guess the language' : 'the HTML has no <html> element, so no lang' },
    );
    const tally = (id: string, t: Tally, what: string, bad: string): Finding =>
      t.bad ? { id, result: 'fail', detail: `${t.bad} of ${t.count} ${what} ${bad}: ${t.listed}` } : { id, result: 'pass', detail: `${t.count} ${what}, none ${bad}` };
    findings.push(tally('img-alt', this.images, 'images', 'without an alt attribute'));
    findings.push(tally('layout-table', this.layoutTables, 'layout tables (no th, caption or headers)', 'without role="presentation"'));
    findings.push(tally('link-name', this.links, 'links', 'without text, an image alt, aria-label or title'));
    findings.push(
      this.headings.length === 0
        ? { id: 'heading-order', result: 'none', detail: 'no headings' }
        : this.skips.length
          ? { id: 'heading-order', result: 'warn', detail: `heading levels skip: ${this.skips.join(', ')}` }
          : { id: 'heading-order', result: 'pass', detail: `${this.headings.length} headings, no level skipped` },
    );
    const w = this.worst;
    findings.push(
      this.contrastChecked === 0
        ? { id: 'contrast', result: 'none', detail: 'no text with inline colors this check reads (hex, rgb(), basic names)' }
        : w
          ? { id: 'contrast', result: 'fail', detail: `${this.lowContrast} of ${this.contrastChecked} text runs with inline colors are below ${MIN_CONTRAST}:1; the lowest ${w.ratio.toFixed(2)}:1 (${hexOf(w.fg)} on ${hexOf(w.bg)}) "${w.text}"` }
          : { id: 'contrast', result: 'pass', detail: `${this.contrastChecked} text runs with inline colors, all at least ${MIN_CONTRAST}:1` },
    );
    return findings;
  }
}
