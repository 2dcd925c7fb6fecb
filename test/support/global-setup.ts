import type { Config } from 'jest';
import type { StoreKind } from '../../lambdas/config/app-config';
import { stackVariable, type SharedStack } from './shared';
import { startStack, type StackHandle } from './stack';

/** Starts the shared local stack of a jest project (its displayName is the store kind) once for the whole run. */
export default async function globalSetup(_global: Config, project: { displayName?: { name: string } | string }): Promise<void> {
  const name = typeof project.displayName === 'string' ? project.displayName : project.displayName?.name;
  const kind: StoreKind = name === 'dynamodb' ? 'dynamodb' : 'embedded';
  const stack = await startStack({ store: kind });
  const stacks = ((globalThis as { __TEMPMAIL_STACKS__?: StackHandle[] }).__TEMPMAIL_STACKS__ ??= []);
  stacks.push(stack);
  const shared: SharedStack = {
    store: stack.store,
    apiUrl: stack.apiUrl,
    smtpPort: stack.smtpPort,
    dataDir: stack.dataDir,
    dynamoEndpoint: stack.dynamoEndpoint,
    s3Endpoint: stack.s3Endpoint,
    keys: stack.keys,
    domains: stack.domains,
  };
  process.env[stackVariable(kind)] = JSON.stringify(shared);
}
