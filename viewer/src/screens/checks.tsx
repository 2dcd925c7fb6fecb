/**
 * The message screen's Checks tab (issue 25): GET …/checks, each section the API answers (by name: the sections are
 * the API's, not a list here) with its status, reason and findings. A result is written out (a symbol and a word)
 * as well as coloured, so that it reads without colour. Details and reasons quote the mail (a Message-ID, a link, a
 * domain): they are rendered as text, never as markup. The checks run when the tab is first opened (DNS lookups can
 * take seconds), once per message; the links section only when asked, since it requests the mail's links.
 */
import { useEffect, useState } from 'preact/hooks';
import type { CheckFinding, CheckSection, MessageChecks } from '../../../client';
import { apiClient, describeError, isUnauthorized } from '../api';
import type { Session } from '../shell';
import { formatTime } from '../ui';

/** How each result reads: a symbol (decorative) and a word, and its colour class: good, bad, warn or neutral. */
const RESULT_LOOK: Record<string, { symbol: string; tone: string }> = {
  pass: { symbol: '✓', tone: 'good' },
  fail: { symbol: '✗', tone: 'bad' },
  permerror: { symbol: '✗', tone: 'bad' },
  softfail: { symbol: '!', tone: 'warn' },
  temperror: { symbol: '!', tone: 'warn' },
  warn: { symbol: '!', tone: 'warn' },
};
const lookOf = (result: string) => RESULT_LOOK[result] ?? { symbol: '•', tone: 'neutral' };
/** A section's heading: its name capitalised (an acronym written as one). */
const titleOf = (name: string) => (name === 'html' ? 'HTML' : name.charAt(0).toUpperCase() + name.slice(1));

/** "2 fail, 1 warn, 5 pass": a section at a glance. */
function tally(findings: CheckFinding[]): string {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.result, (counts.get(f.result) ?? 0) + 1);
  return [...counts].map(([result, n]) => `${n} ${result}`).join(', ') || 'no findings';
}

export interface ChecksState {
  checks: MessageChecks | null;
  error: string | null;
  loading: boolean;
  withLinks: boolean;
  checkLinks: () => void;
}

/** The checks of one message, fetched the first time `active` is true (and again with links when asked). */
export function useChecks(session: Session, inboxId: string, messageId: string, active: boolean, fail: (e: unknown) => void): ChecksState {
  // `fail` only for a refused key (it signs out); any other error stays in the tab, the rest of the message usable.
  const [answer, setAnswer] = useState<{ checks: MessageChecks; links: boolean } | null>(null);
  const [withLinks, setWithLinks] = useState(false);
  const [wanted, setWanted] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (active) setWanted(true);
  }, [active]);
  useEffect(() => {
    if (!wanted) return;
    const controller = new AbortController();
    setError(null);
    apiClient(session.apiKey, controller.signal)
      .checks(inboxId, messageId, { links: withLinks })
      .then(
        (checks) => setAnswer({ checks, links: withLinks }),
        (e: unknown) => {
          if (controller.signal.aborted) return;
          if (isUnauthorized(e)) fail(e);
          else setError(describeError(e));
        },
      );
    return () => controller.abort();
  }, [wanted, withLinks, session, inboxId, messageId, fail]);
  const loading = wanted && !error && answer?.links !== withLinks;
  return { checks: answer?.checks ?? null, error, loading, withLinks, checkLinks: () => setWithLinks(true) };
}

function Finding({ finding }: { finding: CheckFinding }) {
  const look = lookOf(finding.result);
  return (
    <tr>
      <td>
        <span class={`result ${look.tone}`}>
          <span aria-hidden="true">{look.symbol} </span>
          {finding.result}
        </span>
      </td>
      <th scope="row">
        <code>{finding.id}</code>
      </th>
      <td>{finding.detail}</td>
    </tr>
  );
}

function Section({ name, section }: { name: string; section: CheckSection }) {
  return (
    <section aria-labelledby={`check-${name}`} class="check-section" data-section={name}>
      <h2 id={`check-${name}`}>
        {titleOf(name)} <span class={`status ${section.status}`}>{section.status}</span>
      </h2>
      {section.reason !== null && <p class="reason">{section.reason}</p>}
      {section.findings.length === 0 ? (
        <p class="meta">No findings.</p>
      ) : (
        <table class="checks">
          <caption class="sr-only">{titleOf(name)} checks</caption>
          <thead>
            <tr>
              <th scope="col">Result</th>
              <th scope="col">Check</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {section.findings.map((f) => (
              <Finding finding={f} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function ChecksPanel({ state }: { state: ChecksState }) {
  const { checks, error, loading, withLinks, checkLinks } = state;
  if (!checks) return error ? <p>The checks could not be run: {error}</p> : <p aria-live="polite">Checking… (DNS lookups can take some seconds)</p>;
  const sections = Object.entries(checks.sections);
  return (
    <div class="checks-panel">
      <div class="row">
        <p class="meta">Checked {formatTime(checks.checked_at)}.</p>
        {!withLinks && (
          <button type="button" class="quiet push-right" onClick={checkLinks}>
            Check links too
          </button>
        )}
        {loading && <p aria-live="polite">Checking links…</p>}
        {withLinks && error && <p>The links could not be checked: {error}</p>}
      </div>
      <ul class="check-summary" aria-label="Checks summary">
        {sections.map(([name, section]) => (
          <li>
            {titleOf(name)}: {section.status}, {tally(section.findings)}
          </li>
        ))}
      </ul>
      {sections.map(([name, section]) => (
        <Section name={name} section={section} />
      ))}
    </div>
  );
}
