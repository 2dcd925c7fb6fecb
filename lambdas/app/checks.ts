/**
 * The checks function's context: the handlers' (lambdas/app/current.ts), the mail verifier (mailauth) and the HTML
 * inspector (htmlparser2, caniemail's data) and the link prober, which only this function's bundle carries. DNS: the servers the config
 * names, else the system's.
 */
import { htmlInspector } from '../checks/html-scan';
import { linkProber } from '../checks/link-probe';
import { mailAuthenticator } from '../checks/mail-auth';
import type { ChecksContext } from '../usecases/context';
import { currentContext } from './current';
import { logger } from './logger';

export function currentChecksContext(): ChecksContext {
  const ctx = currentContext() as Partial<ChecksContext> & ReturnType<typeof currentContext>;
  // The local stack installs a context that has them already; a Lambda container's gains them here, once.
  // Links: the webhook sender's address rule and its setting (private addresses only in the local form).
  ctx.checks ??= {
    authenticator: mailAuthenticator({ servers: ctx.settings.checkDnsServers }),
    html: htmlInspector(),
    links: linkProber({ allowPrivate: ctx.settings.webhooks.allowPrivate }),
    warn: (message, fields) => logger.warn(message, fields),
  };
  return ctx as ChecksContext;
}
