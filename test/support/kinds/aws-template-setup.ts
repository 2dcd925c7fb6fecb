import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSharedStack } from '../global-setup';
import { EVIDENCE_DIR_VARIABLE, SHARED_EVIDENCE } from '../iam-evidence';

/**
 * The template form's shared stack, and the folder where every template-form stack of the run writes the IAM gate's
 * evidence when it stops (the unused-grant report reads it: aws-template-teardown.ts).
 */
export default async () => {
  process.env[EVIDENCE_DIR_VARIABLE] = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-iam-evidence-'));
  await startSharedStack('aws-template', { TEMPMAIL_IAM_EVIDENCE: path.join(process.env[EVIDENCE_DIR_VARIABLE], SHARED_EVIDENCE) });
};
