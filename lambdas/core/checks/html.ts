/**
 * The html section: which HTML and CSS features the mail's HTML uses that a mail client family lacks, by caniemail's
 * data (the HtmlInspector port; lambdas/checks/html-features.ts reads it through @jsx-email/doiuse-email, which ships
 * it), and a score per family. Pure: it turns what the inspector found into findings, so the rules of scoring are
 * stated once, here.
 */
import { complete, partial, type Finding, type Section } from './model';

/** How a client supports a feature the mail uses: only the gaps are listed (absent: supported). */
export type Support = 'none' | 'partial';

/** What the inspector found in the HTML (the port's answer). */
export interface FeatureReport {
  /** Every caniemail feature the HTML uses (its title: `display:flex`, `<video> element`, `:hover`…). */
  used: string[];
  /** Feature title → client (`family.platform`, e.g. `outlook.windows`) → its gap. */
  gaps: Record<string, Record<string, Support>>;
  /** Every client the data covers (`family.platform`), so a family's score counts its clients that have no gap. */
  clients: string[];
  /** CSS that could not be parsed (a few samples with where), checked as far as it could be read. */
  malformedCss: string[];
}

const family = (client: string) => client.slice(0, client.indexOf('.') < 0 ? undefined : client.indexOf('.'));
const platform = (client: string) => client.slice(client.indexOf('.') + 1);

/** `outlook (windows, windows-mail), orange (ios)`: clients grouped by family. */
function byFamily(clients: string[]): string {
  const groups = new Map<string, string[]>();
  for (const c of clients) groups.set(family(c), [...(groups.get(family(c)) ?? []), platform(c)]);
  return [...groups].map(([f, ps]) => `${f} (${ps.join(', ')})`).join(', ');
}

/**
 * A family's score: the mean over the features the HTML uses of the share of the family's clients supporting it,
 * a partial support counting half; 100 when the HTML uses no feature caniemail lists.
 */
export function familyScore(report: FeatureReport, name: string): number {
  const clients = report.clients.filter((c) => family(c) === name);
  if (report.used.length === 0 || clients.length === 0) return 100;
  let sum = 0;
  for (const feature of report.used) {
    const gaps = report.gaps[feature] ?? {};
    sum += clients.reduce((s, c) => s + (gaps[c] === 'none' ? 0 : gaps[c] === 'partial' ? 0.5 : 1), 0) / clients.length;
  }
  return Math.round((100 * sum) / report.used.length);
}

/** `cutShort`: why not all of the HTML was checked (size, element count, time), making the section partial. */
export function htmlSection(report: FeatureReport, cutShort: string | null): Section {
  const findings: Finding[] = [];
  for (const feature of [...report.used].sort()) {
    const gaps = report.gaps[feature];
    if (!gaps) continue;
    const none = Object.keys(gaps).filter((c) => gaps[c] === 'none');
    const some = Object.keys(gaps).filter((c) => gaps[c] === 'partial');
    const parts = [none.length ? `not supported by ${byFamily(none)}` : '', some.length ? `partly supported by ${byFamily(some)}` : ''].filter(Boolean);
    findings.push({ id: 'feature', result: none.length ? 'fail' : 'warn', detail: `\`${feature}\`: ${parts.join('; ')}`.slice(0, 1000) });
  }
  for (const name of [...new Set(report.clients.map(family))]) {
    const score = familyScore(report, name);
    const lacking = Object.keys(report.gaps).filter((f) => Object.entries(report.gaps[f]).some(([c, s]) => family(c) === name && s === 'none'));
    const partly = Object.keys(report.gaps).filter((f) => !lacking.includes(f) && Object.keys(report.gaps[f]).some((c) => family(c) === name));
    const result = lacking.length ? 'fail' : partly.length ? 'warn' : 'pass';
    const what = [lacking.length ? `lacks ${lacking.map((f) => `\`${f}\``).join(', ')}` : '', partly.length ? `partly supports ${partly.map((f) => `\`${f}\``).join(', ')}` : ''].filter(Boolean);
    findings.push({ id: `score-${name}`, result, detail: `${name}: ${score} % of ${report.used.length} features used${what.length ? `; ${what.join('; ')}` : ''}`.slice(0, 1000) });
  }
  if (report.malformedCss.length) {
    findings.push({ id: 'css-parse', result: 'warn', detail: `CSS that could not be parsed, checked as far as it was read: ${report.malformedCss.join('; ')}`.slice(0, 1000) });
  }
  return cutShort ? partial(findings, cutShort) : complete(findings);
}
