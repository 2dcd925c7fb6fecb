/**
 * The shape of GET …/messages/{id}/checks (docs/API.md, "Checking a message"), written out as the server's schemas
 * produce it (lambdas/contract/check-schemas.ts; test/unit/client-types.test.ts proves each section and finding equal,
 * and every answer the server can give assignable to `MessageChecks`). The sections are a record by name, not a fixed
 * list: the server adds sections (sender, authentication, html, accessibility, links with `links: true`) without the
 * client changing, and code that reads them iterates `Object.entries(checks.sections)`.
 */

/** A finding's outcome: pass, warn, fail, info, or for authentication the RFC 8601 result (softfail, temperror…). */
export type CheckResult = 'pass' | 'warn' | 'fail' | 'info' | 'none' | 'neutral' | 'softfail' | 'temperror' | 'permerror' | 'policy';

export interface CheckFinding {
  /** The check's stable name (`list-unsubscribe`, `spf`, `dkim-aligned`…): what a test asserts on. */
  id: string;
  result: CheckResult;
  /** What was found, in words. It may quote the mail (a header, a link): sender-written text. */
  detail: string;
}

export interface CheckSection {
  /** complete: every check ran; partial: some did not; skipped: none did (`reason` says why). */
  status: 'complete' | 'partial' | 'skipped';
  reason: string | null;
  findings: CheckFinding[];
}

export interface MessageChecks {
  message_id: string;
  /** When these results were computed (ISO 8601). */
  checked_at: string;
  /** By section name: `sender`, `authentication`, and each section the server adds. */
  sections: Record<string, CheckSection>;
}

export interface ChecksOptions {
  /** Adds the `links` section: a request to every link and image source of the mail (third-party URLs). Default false. */
  links?: boolean;
}
