/**
 * The context handlers run against. The local stack installs the one it built (lambdas/app/context.ts), shared by
 * every handler it loads, sources or bundles alike, through a process-wide symbol; a Lambda container builds its own
 * from the environment on first use, on the AWS adapters only (lambdas/app/aws-context.ts).
 */
import { configFromEnv } from '../config/app-config';
import { inLambdaEnvironment } from '../config/process-env';
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

// In a Lambda execution environment the context is built in the init phase, when the bundle loads (Lambda's own init
// budget, before any caller waits), not inside the first invocation's timeout: loading the AWS SDK's modules there
// once timed 8 concurrent first key checks out at 10 s (aws-template.test.ts, fault 4, on a loaded machine). A failure
// here (a missing setting) is left to the first invocation, which reports it as before. The local stack's own process
// is no Lambda environment, so its embedded form still loads no SDK.
if (inLambdaEnvironment() && !installedContext()) {
  try {
    currentContext();
  } catch {
    // reported by the first invocation (currentContext builds again and throws there)
  }
}
