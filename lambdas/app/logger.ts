/**
 * The one logger: every function's (API handlers, authorizer, ingest, webhooks, cleanup, the receipt rule set's
 * custom resource) and the local stack's own failures (local/gateway.ts). Powertools' structured JSON lines, which
 * CloudWatch reads on AWS. Events are never logged whole: they carry the X-API-Key header; keys and secrets are
 * never logged at all. LOG_LEVEL is read by the config (lambdas/config/log-level.ts), like every other setting.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { logLevelFromEnv } from '../config/log-level';

export const logger = new Logger({ serviceName: 'tempmail', logLevel: logLevelFromEnv() });
