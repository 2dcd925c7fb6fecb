/** GET …/messages/{id}/checks (issue 25): its query and answer, from the domain's lists (lambdas/core/checks/model.ts). */
import * as z from 'zod/mini';
import { CHECK_RESULTS, SECTION_STATUSES } from '../core/checks/model';
import { described, named } from './schemas';

export const ChecksQuery = z.strictObject({
  links: z.optional(
    described(z.enum(['true', 'false'], { error: 'links must be true or false' }), 'true: also check each link and image source with a request (the links section); a check then makes requests to the URLs in the mail'),
  ),
});

const Finding = named(
  z.object({
    id: described(z.string(), 'the check: list-unsubscribe, spf, dkim-aligned…; docs/API.md lists them'),
    result: z.enum(CHECK_RESULTS),
    detail: described(z.string(), 'what was found, and for a temperror what DNS said'),
  }),
  'CheckFinding',
);

const Section = named(
  z.object({
    status: described(z.enum(SECTION_STATUSES), 'complete: every check ran; partial: some did not; skipped: none did (reason says why)'),
    reason: z.nullable(z.string()),
    findings: z.array(Finding),
  }),
  'CheckSection',
);

export const MessageChecks = named(
  z.object({
    message_id: z.string(),
    checked_at: described(z.string(), 'when these results were computed (ISO 8601)'),
    sections: described(
      z.object({ sender: Section, authentication: Section, html: Section, accessibility: Section, links: Section }),
      'sender: List-Unsubscribe and one-click (RFC 8058), Message-ID, Date, size against Gmail clipping, DKIM d= aligned with From; ' +
        'authentication: SPF, DKIM, DMARC and ARC computed from the raw mail and its envelope, on AWS also SES verdicts (ses-spf…); ' +
        'html: each HTML/CSS feature a mail client family lacks (caniemail data) and a score per family; ' +
        'accessibility: lang, image alt, layout tables, link names, heading order, contrast of inline colors; ' +
        'links (only with ?links=true, else skipped): each link and image source with its status, redirects and time',
    ),
  }),
  'MessageChecks',
);
