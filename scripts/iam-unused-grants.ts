/**
 * The unused-grant report: each function's grants that no allowed call of a run used (the evidence files the IAM
 * gate writes, local/aws/iam; several files are one run's stacks, merged), each with its written reason
 * (local/aws/iam/reasons.ts, and the template's own, carried in the file) or marked EXCESS. Exits 1 when any grant
 * is unused without a reason, so a run can fail on least privilege. `npm test` runs the same report after the
 * aws-template project (test/support/kinds/aws-template-teardown.ts).
 *
 *   npx tsx scripts/iam-unused-grants.ts <evidence.json>…
 */
import { mergeEvidence, readEvidence, unusedGrantReport } from '../local/aws/iam';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx scripts/iam-unused-grants.ts <evidence.json>…');
  process.exit(2);
}
const { text, unexplained } = unusedGrantReport(mergeEvidence(files.map(readEvidence)));
console.log(text);
process.exit(unexplained.length ? 1 : 0);
