import fs from 'node:fs';
import globalTeardown from '../global-teardown';
import { EVIDENCE_DIR_VARIABLE, runReport } from '../iam-evidence';

interface RunScope {
  testPathPatterns?: { patterns?: string[] } | string[];
  testNamePattern?: string;
  onlyChanged?: boolean;
  onlyFailures?: boolean;
  findRelatedTests?: boolean;
  lastCommit?: boolean;
  changedSince?: string;
}

/** Whether the whole project ran: only then did every scenario have its chance to use each grant. */
function wholeRun(config: RunScope): boolean {
  const patterns = Array.isArray(config.testPathPatterns) ? config.testPathPatterns : (config.testPathPatterns?.patterns ?? []);
  return patterns.length === 0 && !config.testNamePattern && !config.onlyChanged && !config.onlyFailures && !config.findRelatedTests && !config.lastCommit && !config.changedSince;
}

/**
 * After the aws-template project: the stacks stop (each writes its IAM evidence), then the unused-grant report over
 * the run's evidence. On a whole run an unused grant without a written reason fails it (issue 21 item 4); a run of
 * some files only prints the report, since scenarios it left out would have used grants.
 */
export default async function awsTemplateTeardown(config: RunScope): Promise<void> {
  await globalTeardown();
  const dir = process.env[EVIDENCE_DIR_VARIABLE];
  if (!dir) return;
  try {
    const report = runReport(dir);
    const whole = wholeRun(config);
    console.log(`\nIAM unused-grant report (${report.files} template-form stacks${whole ? '' : '; a partial run: not judged'}):\n${report.text}`);
    if (whole && report.unexplained.length) {
      throw new Error(`${report.unexplained.length} grants no scenario used and no written reason keeps (local/aws/iam/reasons.ts): remove them from lib/ or reason them:\n${report.unexplained.map((g) => `  ${g.functionLogicalId}: ${g.action} on ${g.resource}`).join('\n')}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
