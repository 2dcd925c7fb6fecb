/**
 * The template form (`npm run start:aws`) as the keys CLI finds it: a running start:aws writes its state file in
 * its data folder (TEMPMAIL_DATA_DIR, default .tempmail-aws), as the local stack does in .tempmail. The CLI then
 * takes the deployed stack's path (cli/aws-admin.ts: key record, API Gateway key, usage-plan key) against the
 * template form's local endpoints, so `npx tempmail keys create --plan dev` works unchanged against it.
 * A local stack running on the CLI's data folder comes first: the template form is used when none is.
 */
import path from 'node:path';
import { setProcessEnv } from '../lambdas/config/process-env';
import { runningStackOf } from '../local/stack';
import { DEFAULT_TEMPLATE_DATA_DIR, TEMPLATE_KIND } from '../local/aws/template';
import type { TemplateStackState } from '../local/aws/template-runner';

/**
 * The running template form to act on: the one on `dataDir`, or (TEMPMAIL_DATA_DIR unset) on .tempmail-aws, when no
 * local stack runs on `dataDir`; with `stackName`, only one of that name.
 */
export function runningTemplateForm(dataDir: string, dataDirGiven: boolean, stackName?: string): TemplateStackState | null {
  const here = runningStackOf(dataDir) as TemplateStackState | null;
  if (here && here.kind !== TEMPLATE_KIND) return null;
  const found = here ?? (dataDirGiven ? null : (runningStackOf(path.resolve(DEFAULT_TEMPLATE_DATA_DIR)) as TemplateStackState | null));
  if (!found || found.kind !== TEMPLATE_KIND) return null;
  if (stackName && found.stackName !== stackName) return null;
  return found;
}

/**
 * The data folder of the stack running for the CLI, of either form: `dataDir` when a stack (npm start's or
 * start:aws's) runs on it, else (TEMPMAIL_DATA_DIR unset) .tempmail-aws when start:aws runs there; null when none
 * does. `tempmail env` reads the stack's state file and dev key from it, so "Try it" runs against both forms.
 */
export function runningStackFolder(dataDir: string, dataDirGiven: boolean): string | null {
  if (runningStackOf(dataDir)) return dataDir;
  const template = path.resolve(DEFAULT_TEMPLATE_DATA_DIR);
  return !dataDirGiven && runningStackOf(template) ? template : null;
}

/** Points this process's AWS SDK clients at the template form's endpoints (as the operator). */
export async function useTemplateForm(state: TemplateStackState): Promise<void> {
  // A require, as the bin's: it runs under tsx's require hook, which import() bypasses.
  const { operatorEnv } = require('../local/aws/template-runner') as typeof import('../local/aws/template-runner');
  setProcessEnv(operatorEnv(state.endpoints, state.region));
}
