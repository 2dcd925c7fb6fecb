/**
 * The ingest function's context: the handlers' (lambdas/app/current.ts) and the MIME parser, which only this
 * function's bundle carries.
 */
import { mailParser } from '../ingest/parse-mail';
import type { IngestContext } from '../usecases/context';
import { currentContext } from './current';

export function currentIngestContext(): IngestContext {
  const ctx = currentContext() as Partial<IngestContext> & ReturnType<typeof currentContext>;
  // The local stack installs a context that has one already; a Lambda container's gains it here, once.
  ctx.mail ??= mailParser;
  return ctx as IngestContext;
}
