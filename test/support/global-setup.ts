import { stackVariable, type SharedStack, type TestKind } from './shared';
import { startStack, type StackHandle } from './stack';

/**
 * Starts the shared local stack of a jest project once for the whole run. Each project names its own module
 * (kinds/<kind>-setup.ts): jest runs one global setup module once however many projects name it.
 */
export async function startSharedStack(kind: TestKind, env?: Record<string, string>): Promise<void> {
  const stack = await startStack(kind === 'aws-template' ? { form: 'aws-template', env } : { store: kind, env });
  const stacks = ((globalThis as { __TEMPMAIL_STACKS__?: StackHandle[] }).__TEMPMAIL_STACKS__ ??= []);
  stacks.push(stack);
  const shared: SharedStack = {
    store: stack.store,
    form: stack.form,
    table: stack.table,
    bucket: stack.bucket,
    aws: stack.aws,
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
