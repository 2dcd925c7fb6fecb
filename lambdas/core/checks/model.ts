/**
 * What GET …/messages/{id}/checks answers (issue 25), independent of how each part is computed: sections of
 * findings, each complete, partial or skipped with a reason, so that a part that cannot finish (DNS down, the time
 * budget spent, a body too large to read) still answers 200 with what it found instead of failing the whole request.
 */

/** A finding's outcome. The authentication results keep their RFC 8601 names (pass, fail, softfail, temperror…). */
export const CHECK_RESULTS = ['pass', 'warn', 'fail', 'info', 'none', 'neutral', 'softfail', 'temperror', 'permerror', 'policy'] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number];

export interface Finding {
  /** Stable name of the check (`list-unsubscribe`, `spf`, `img-alt`…): what a test asserts on. */
  id: string;
  result: CheckResult;
  /** What was found, in a sentence. */
  detail: string;
}

/** complete: every check ran; partial: some did not (reason says which and why); skipped: none ran (reason says why). */
export const SECTION_STATUSES = ['complete', 'partial', 'skipped'] as const;
export type SectionStatus = (typeof SECTION_STATUSES)[number];

export interface Section {
  status: SectionStatus;
  reason: string | null;
  findings: Finding[];
}

export const complete = (findings: Finding[]): Section => ({ status: 'complete', reason: null, findings });
export const partial = (findings: Finding[], reason: string): Section => ({ status: 'partial', reason, findings });
export const skipped = (reason: string): Section => ({ status: 'skipped', reason, findings: [] });

/** The worst outcomes first: what a summary counts as a problem. */
export const PROBLEMS: ReadonlySet<CheckResult> = new Set<CheckResult>(['fail', 'permerror', 'softfail', 'temperror', 'warn']);

/**
 * The version of the rules behind the sections a message's checks cache keeps (sender, html, accessibility): it is in
 * the cached object's key (blobKeys.checks), so raising it when a rule, a bound or caniemail's data changes makes every
 * older cache unread (each is computed afresh and stored under the new key; the old object goes with its message).
 */
export const CHECKS_CACHE_VERSION = 1;
