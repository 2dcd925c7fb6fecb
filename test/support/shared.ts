/**
 * The local stack that jest's globalSetup started for the tests of this project (embedded, or dynamodb for the
 * files that also prove the AWS adapters end to end), described through the environment.
 */
import type { StoreKind } from '../../lambdas/config/app-config';
import type { Keys } from './stack';

/** A jest project's kind of stack: a local stack on one of its stores, or the synthesized template (start:aws). */
export type TestKind = StoreKind | 'aws-template';

export interface SharedStack {
  store: StoreKind;
  /** `aws-template`: the stack is `npm run start:aws` (store dynamodb, with the template's table and bucket). */
  form?: 'local' | 'aws-template';
  table?: string;
  bucket?: string;
  /** The template form's stack name and endpoints. */
  aws?: { stackName: string; templateFile: string; endpoints: { dynamodb: string; s3: string; sqs: string; controlPlane: string } };
  apiUrl: string;
  smtpPort: number;
  dataDir: string;
  dynamoEndpoint?: string;
  s3Endpoint?: string;
  keys: Keys;
  domains: string[];
}

export const stackVariable = (kind: TestKind) => `TEMPMAIL_TEST_STACK_${kind.toUpperCase()}`;

/** The kind of store the running jest project tests. */
export const testKind = (): TestKind => {
  const kind = process.env.TEMPMAIL_TEST_KIND;
  return kind === 'dynamodb' || kind === 'aws-template' ? kind : 'embedded';
};

export function sharedStack(): SharedStack {
  const described = process.env[stackVariable(testKind())];
  if (!described) throw new Error('no shared stack: run the tests through jest (globalSetup starts it)');
  return JSON.parse(described) as SharedStack;
}
