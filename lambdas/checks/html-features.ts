/**
 * Which caniemail features a mail's HTML uses and which clients lack them, through @jsx-email/doiuse-email (MIT),
 * which ships caniemail's data. Its own entry point parses the whole document into a tree, walks it recursively (a
 * deeply nested mail overflows the stack), throws on CSS it cannot parse, and checks every element again (about 2 ms
 * for one styled element on this machine). So this module feeds its checker piece by piece instead, from the
 * streaming scan (html-scan.ts): each distinct element form, inline declaration and style rule once, CSS parsed by
 * @adobe/css-tools in its silent mode (an error is recorded, the rest still read), a piece that throws recorded and
 * skipped. The work is queued as small jobs the scan runs between its time slices, up to a count.
 */
import { parse as parseCss } from '@adobe/css-tools';
import { DoIUseEmail } from '@jsx-email/doiuse-email';
import type { FeatureReport, Support } from '../core/checks/html';
import type { HtmlVisitor } from '../core/checks/visitor';

/** Distinct pieces (element forms, declarations, rules) checked at most; past it the section is partial. */
export const MAX_FEATURE_CHECKS = 2_000;
/** Bytes of one <style> element read. */
const MAX_STYLE_BYTES = 256 * 1024;
const MALFORMED_SAMPLES = 3;

type Rule = { type: string; selectors?: string[]; declarations?: { type: string; property?: string; value?: string }[]; rules?: Rule[] };

/** The message form the checker reports in (its version is pinned): "`feature` is not supported by `client`". */
const GAP = /^`(.+)` is (not|only partially) supported by `([^`]+)`$/;

/** The checker, recording what it is asked about and the gaps it finds instead of collecting repeated strings. */
class Recorder extends DoIUseEmail {
  readonly used = new Set<string>();
  readonly gaps: Record<string, Record<string, Support>> = {};

  override checkFeaturesSupport(titles: string | string[]): void {
    for (const title of [titles].flat()) this.used.add(title);
    super.checkFeaturesSupport(titles);
  }
  override error(message: string): void {
    this.gap(message);
  }
  override warning(message: string): void {
    this.gap(message);
  }
  override note(): void {
    // caniemail's footnotes: not reported
  }
  private gap(message: string): void {
    const m = GAP.exec(message);
    if (!m) return;
    (this.gaps[m[1]] ??= {})[m[3]] = m[2] === 'not' ? 'none' : 'partial';
  }
}

/**
 * An attribute's value only as far as a caniemail feature depends on it (doiuse matches `href` by `#` and `mailto:`,
 * other pairs by a short word), so 10,000 links are one element form.
 */
function attributeKey(tag: string, name: string, value: string): string {
  if (name === 'href') return `href=${value.startsWith('#') ? '#' : /^mailto:/i.test(value) ? 'mailto' : ''}`;
  return /^\w{1,24}$/.test(value) ? `${name}=${value}` : name;
}

/** A declaration's value as far as a feature depends on it: numbers, hex colors and URLs do not matter. */
const valueKey = (value: string) => value.replace(/url\([^)]*\)/gi, 'url()').replace(/#[0-9a-f]{3,8}\b/gi, '#0').replace(/\d+(\.\d+)?/g, '0');

export class FeatureChecker implements HtmlVisitor {
  private readonly checker = new Recorder({ emailClients: ['*'] });
  private readonly seen = new Set<string>();
  private readonly jobs: (() => void)[] = [];
  private readonly malformed: string[] = [];
  private style: string[] | null = null;
  private styleBytes = 0;
  /** Why not every piece was checked, once it happens. */
  cutShort: string | null = null;

  open(name: string, attributes: Readonly<Record<string, string>>): void {
    if (name === 'style') {
      this.style = [];
      this.styleBytes = 0;
    }
    const plain = Object.entries(attributes).filter(([n]) => n !== 'style');
    this.once(`<${name} ${plain.map(([n, v]) => attributeKey(name, n, v)).sort().join(' ')}>`, () =>
      this.checker.checkHtmlNode({ tagName: name, attributes: plain.map(([n, v]) => ({ name: n, value: v })) } as never),
    );
    if (attributes.style) this.declarations(attributes.style, `the style attribute of a <${name}>`);
  }

  text(text: string): void {
    if (!this.style || this.styleBytes >= MAX_STYLE_BYTES) return;
    this.style.push(text);
    this.styleBytes += text.length;
  }

  close(name: string): void {
    if (name !== 'style' || !this.style) return;
    const css = this.style.join('').slice(0, MAX_STYLE_BYTES);
    this.style = null;
    let rules: Rule[];
    try {
      const sheet = parseCss(css, { silent: true });
      this.malformedFrom(sheet.stylesheet.parsingErrors, 'a <style> element');
      rules = flatten(sheet.stylesheet.rules as Rule[]);
    } catch (error) {
      // Silent mode still throws on some input (nesting deep enough to exhaust the parser's stack).
      return this.recordMalformed(`a <style> element: ${(error as Error).message}`.slice(0, 120));
    }
    for (const rule of rules) {
      const key = rule.type === 'rule' ? `rule ${(rule.selectors ?? []).join(',')} {${(rule.declarations ?? []).map((d) => `${d.property}:${valueKey(d.value ?? '')}`).join(';')}}` : `@${rule.type}`;
      this.once(key, () => this.checker.checkStylesheet({ type: 'stylesheet', stylesheet: { rules: [{ ...rule, rules: undefined }] } } as never));
    }
  }

  /** Runs one queued check; false when none is left. */
  step(): boolean {
    const job = this.jobs.shift();
    if (!job) return false;
    try {
      job();
    } catch (error) {
      this.recordMalformed(`${(error as Error).message}`.slice(0, 120));
    }
    return true;
  }

  report(): FeatureReport {
    return { used: [...this.checker.used], gaps: this.checker.gaps, clients: [...this.checker.emailClients], malformedCss: this.malformed };
  }

  private declarations(style: string, where: string): void {
    let rule: Rule | undefined;
    try {
      const sheet = parseCss(`x{${style}}`, { silent: true });
      this.malformedFrom(sheet.stylesheet.parsingErrors, where);
      rule = sheet.stylesheet.rules[0] as Rule | undefined;
    } catch (error) {
      return this.recordMalformed(`${where}: ${(error as Error).message}`.slice(0, 120));
    }
    for (const d of rule?.declarations ?? []) {
      if (d.type !== 'declaration' || !d.property) continue;
      const declaration = { property: d.property.toLowerCase(), value: d.value ?? '' };
      this.once(`${declaration.property}:${valueKey(declaration.value)}`, () => this.checker.checkCSSDeclarations([declaration]));
    }
  }

  private once(key: string, job: () => void): void {
    if (this.seen.has(key)) return;
    if (this.seen.size >= MAX_FEATURE_CHECKS) {
      this.cutShort ??= `the HTML has more than ${MAX_FEATURE_CHECKS} distinct element forms, declarations and style rules: the first ${MAX_FEATURE_CHECKS} were checked`;
      return;
    }
    this.seen.add(key);
    this.jobs.push(job);
  }

  private malformedFrom(errors: { message?: string; reason?: string; line?: number }[] | undefined, where: string): void {
    for (const e of errors ?? []) this.recordMalformed(`${where}: ${e.reason ?? e.message ?? 'unreadable'}${e.line ? ` (line ${e.line})` : ''}`);
  }

  private recordMalformed(what: string): void {
    if (this.malformed.length < MALFORMED_SAMPLES && !this.malformed.includes(what)) this.malformed.push(what);
  }
}

/** Rules inside @media, @supports and the like are checked as rules too (the at-rule itself as one piece), 8 deep. */
function flatten(rules: Rule[], depth = 0): Rule[] {
  return rules.flatMap((r) => (Array.isArray(r.rules) && depth < 8 ? [r, ...flatten(r.rules, depth + 1)] : [r]));
}
