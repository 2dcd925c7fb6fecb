/**
 * Least privilege from evidence (issue 21): every template-form stack a test run starts writes the IAM gate's
 * evidence when it stops (TEMPMAIL_IAM_EVIDENCE, local/aws/template-runner.ts) into one folder of the run; after the
 * aws-template project, the unused-grant report over all of it fails the run on any grant no scenario used and no
 * written reason keeps (local/aws/iam/reasons.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { mergeEvidence, readEvidence, unusedGrantReport } from '../../local/aws/iam';

/** The run's evidence folder (set by the aws-template project's global setup). */
export const EVIDENCE_DIR_VARIABLE = 'TEMPMAIL_TEST_IAM_EVIDENCE_DIR';
/** The shared stack's file: its policies are the template's as synthesized (other stacks may run altered copies). */
export const SHARED_EVIDENCE = 'shared.json';

/** Where a template-form stack of this run writes its evidence, if the run collects it. */
export function evidenceFileFor(dataDir: string): string | undefined {
  const dir = process.env[EVIDENCE_DIR_VARIABLE];
  return dir ? path.join(dir, `${path.basename(dataDir)}.json`) : undefined;
}

/** The report over the run's evidence: the shared stack's policies, every stack's calls. */
export function runReport(dir: string): ReturnType<typeof unusedGrantReport> & { files: number } {
  const shared = path.join(dir, SHARED_EVIDENCE);
  if (!fs.existsSync(shared)) throw new Error(`no evidence from the shared template-form stack in ${dir}`);
  const others = fs.readdirSync(dir).filter((f) => f.endsWith('.json') && f !== SHARED_EVIDENCE).map((f) => path.join(dir, f));
  return { ...unusedGrantReport(mergeEvidence([shared, ...others].map(readEvidence))), files: 1 + others.length };
}
