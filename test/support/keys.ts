/**
 * A key for a test, made where the stack's keys are made: on a local stack, the key use case on its store; on the
 * template form (start:aws), the CLI's `--stack` path (key record, API Gateway key, usage-plan key), since a key the
 * store alone holds is refused by API Gateway's usage plans there, as on AWS.
 */
import type { PlanName } from '../../lambdas/core/plans';
import { issueKey } from '../../lambdas/usecases/keys';
import { storesFor, type StackStorage } from './store';

export interface KeyedStack extends StackStorage {
  form?: 'local' | 'aws-template';
  /** The template form's stack name and endpoints (its state file). */
  aws?: { stackName: string; templateFile: string; endpoints: { dynamodb: string; s3: string; sqs: string; controlPlane: string } };
}

export async function newTestKey(stack: KeyedStack, plan: PlanName): Promise<string> {
  if (stack.form !== 'aws-template') return (await issueKey(storesFor(stack).keyContext, plan)).key;
  const { operatorEnv } = await import('../../local/aws/template-runner');
  Object.assign(process.env, operatorEnv(stack.aws!.endpoints));
  const { createKeyOnAws } = await import('../../cli/aws-admin');
  return (await createKeyOnAws({ stackName: stack.aws!.stackName, plan })).key;
}
