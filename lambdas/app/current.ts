/**
 * The context handlers run against. The local stack installs the one it built (lambdas/app/context.ts), shared by
 * every handler it loads, sources or bundles alike, through a process-wide symbol; a Lambda container builds its own
 * from the environment on first use, on the AWS adapters only (lambdas/app/aws-context.ts).
 */
import { configFromEnv } from '../config/app-config';
import type { AppContext } from '../usecases/context';
import { awsContext } from './aws-context';

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
  return ((globalThis as Slot)[SLOT] ??= awsContext(configFromEnv()));
}
