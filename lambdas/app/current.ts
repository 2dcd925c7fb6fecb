/**
 * The context handlers run against. The local stack installs the one it built (lambdas/app/context.ts), shared by
 * every handler it loads, sources or bundles alike, through a process-wide symbol; a Lambda container builds its own
 * from the environment on first use, on the AWS adapters only (lambdas/app/aws-context.ts).
 */
import { configFromEnv } from '../config/app-config';
import type { AppContext } from '../usecases/context';

const SLOT = Symbol.for('tempmail.appContext');
type Slot = { [SLOT]?: AppContext };

export function installContext(ctx: AppContext | undefined): void {
  (globalThis as Slot)[SLOT] = ctx;
}

/** The context the local stack installed, if any; never builds one (for handlers that need no storage). */
export function installedContext(): AppContext | undefined {
  return (globalThis as Slot)[SLOT];
}

export function currentContext(): AppContext {
  // A require (not an import) so that loading a handler loads no AWS SDK client: the local stack installs its own
  // context before any handler runs, and its embedded form must not pay for the SDK (test/integration/local-form).
  // esbuild still bundles the module, as it follows a require of a literal path.
  return ((globalThis as Slot)[SLOT] ??= (require('./aws-context') as typeof import('./aws-context')).awsContext(configFromEnv()));
}
