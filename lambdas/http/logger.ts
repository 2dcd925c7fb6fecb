import { Logger } from '@aws-lambda-powertools/logger';

/** One logger for every function. Events are never logged whole: they carry the X-API-Key header. */
export const logger = new Logger({ serviceName: 'tempmail', logLevel: (process.env.LOG_LEVEL as 'INFO' | undefined) ?? 'INFO' });
