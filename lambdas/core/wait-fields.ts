/**
 * The vocabulary of a test author's wait conditions (POST …/messages/wait, issue 24): the fields, the operators, the
 * bounds, and which values of a message a field names. Pure and small, so that the request schemas can state the
 * same names without carrying the regular-expression engine (core/wait-conditions.ts has the rules that run).
 */
export const CONDITION_FIELDS = ['subject', 'from', 'to', 'text', 'html', 'attachment_name'] as const;
/** `header:<Name>`: the values of every header field of that name (any case). */
export const HEADER_FIELD_PREFIX = 'header:';
export const CONDITION_OPS = ['contains', 'equals', 'regex'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** Bounds of one wait request's conditions. */
export const WAIT_CONDITION_LIMITS = {
  conditions: 20,
  valueChars: 1_000,
  /** How much of a value a near miss shows (`seen`). */
  seenChars: 200,
  /** Messages a 408 lists as near misses. */
  nearMisses: 5,
  /**
   * The characters of a value a regex reads (the first ones): re2-wasm runs in a fixed 16 MB of WebAssembly memory,
   * which a million three-byte characters and a pattern matching all of them overflow (the engine aborts); twice this
   * bound passed every pattern tried (test/unit/wait-conditions.test.ts). contains and equals read everything.
   */
  regexInputChars: 262_144,
  /** The most messages one wait may ask for (`count`): each is answered in full. */
  count: 10,
} as const;

export interface Condition {
  field: string;
  op: ConditionOp;
  value: string;
}

/** The parts of a message (its API view) that conditions look at. */
export interface Candidate {
  subject: string;
  from: string;
  from_name: string | null;
  /** The inbox address the mail was stored for. */
  to: string;
  envelope: { from: string; to: string } | null;
  text: string;
  html: string;
  headers: readonly { name: string; value: string }[];
  attachments: readonly { filename: string | null }[];
}

/** A condition a message failed, with what it held there (cut to `seenChars`; null when it held nothing). */
export interface FailedCondition extends Condition {
  seen: string | null;
}

export interface Verdict {
  matched: boolean;
  failed: FailedCondition[];
}

export interface CompiledConditions {
  readonly conditions: readonly Condition[];
  readonly match: 'all' | 'any';
  evaluate(candidate: Candidate): Verdict;
  /** Frees the compiled patterns (WebAssembly memory the garbage collector does not see); call once done. */
  dispose(): void;
}

export const fold = (text: string) => text.toLowerCase();

/** Whether `field` names something conditions can test. */
/**
 * A header field name as RFC 5322 (2.2) allows it: printable US-ASCII but the colon. Bounded at 200 characters, far
 * above any real name, so that a name no mail can carry is a 400 instead of a wait that can never match.
 */
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]{1,200}$/;
export const HEADER_NAME_RULE = '1 to 200 printable ASCII characters without ":"';

export const isConditionField = (field: string): boolean =>
  (CONDITION_FIELDS as readonly string[]).includes(field) || (field.startsWith(HEADER_FIELD_PREFIX) && HEADER_NAME.test(field.slice(HEADER_FIELD_PREFIX.length)));

/**
 * The values a field names in a message; a condition holds when any of them passes. `from` is the address and
 * `name <address>`; `to` is every To header, the envelope's recipient (with its +tag) and the inbox address.
 */
export function fieldValues(candidate: Candidate, field: string): string[] {
  if (field.startsWith(HEADER_FIELD_PREFIX)) {
    const name = fold(field.slice(HEADER_FIELD_PREFIX.length));
    return candidate.headers.filter((h) => fold(h.name) === name).map((h) => h.value);
  }
  switch (field) {
    case 'subject':
      return [candidate.subject];
    case 'from':
      return candidate.from_name ? [candidate.from, `${candidate.from_name} <${candidate.from}>`] : [candidate.from];
    case 'to':
      return [...candidate.headers.filter((h) => fold(h.name) === 'to').map((h) => h.value), ...(candidate.envelope ? [candidate.envelope.to] : []), candidate.to];
    case 'text':
      return [candidate.text];
    case 'html':
      return [candidate.html];
    case 'attachment_name':
      return candidate.attachments.flatMap((a) => (a.filename === null ? [] : [a.filename]));
    default:
      return [];
  }
}

