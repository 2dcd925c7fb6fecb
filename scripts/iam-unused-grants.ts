/**
 * The unused-grant report: each function's grants that no allowed call of a run used (the evidence file the IAM gate
 * writes, local/aws/iam), each with its written reason (local/aws/iam/reasons.ts, and the template's own, carried in
 * the file) or marked EXCESS. Exits 1 when any grant is unused without a reason, so a run can fail on least privilege.
 *
 *   npx tsx scripts/iam-unused-grants.ts <evidence.json>
 */
import { explainUnused, readEvidence, UNUSED_GRANT_REASONS, unusedGrantsOf } from '../local/aws/iam';

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx scripts/iam-unused-grants.ts <evidence.json>');
  process.exit(2);
}
const snapshot = readEvidence(file);
const { explained, unexplained } = explainUnused(unusedGrantsOf(snapshot), [...UNUSED_GRANT_REASONS, ...(snapshot.reasons ?? [])]);
const byFunction = new Map<string, string[]>();
for (const g of [...unexplained.map((u) => ({ ...u, reason: '' })), ...explained]) {
  const lines = byFunction.get(g.functionLogicalId) ?? [];
  lines.push(`  ${g.reason ? 'reasoned' : 'EXCESS  '} ${g.action} on ${g.resource}${g.reason ? `\n           ${g.reason}` : ''}`);
  byFunction.set(g.functionLogicalId, lines);
}
console.log(`${snapshot.calls.length} distinct allowed calls by ${new Set(snapshot.calls.map((c) => c.functionLogicalId)).size} of ${Object.keys(snapshot.policies).length} functions`);
for (const [fn, lines] of [...byFunction].sort(([a], [b]) => a.localeCompare(b))) console.log(`${fn}\n${lines.join('\n')}`);
console.log(`${unexplained.length} unused grants without a reason, ${explained.length} with one`);
process.exit(unexplained.length ? 1 : 0);
