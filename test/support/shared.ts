/**
 * The local stack that jest's globalSetup started for the tests of this project (embedded, or dynamodb for the
 * files that also prove the AWS adapters end to end), described through the environment.
 */
import type { StoreKind } from '../../lambdas/config/app-config';
import type { Keys } from './stack';

export interface SharedStack {
  store: StoreKind;
  apiUrl: string;
  smtpPort: number;
  dataDir: string;
  dynamoEndpoint?: string;
  s3Endpoint?: string;
  keys: Keys;
  domains: string[];
}

export const stackVariable = (kind: StoreKind) => `TEMPMAIL_TEST_STACK_${kind.toUpperCase()}`;

/** The kind of store the running jest project tests. */
export const testKind = (): StoreKind => (process.env.TEMPMAIL_TEST_KIND === 'dynamodb' ? 'dynamodb' : 'embedded');

export function sharedStack(): SharedStack {
  const described = process.env[stackVariable(testKind())];
  if (!described) throw new Error('no shared stack: run the tests through jest (globalSetup starts it)');
  return JSON.parse(described) as SharedStack;
}
