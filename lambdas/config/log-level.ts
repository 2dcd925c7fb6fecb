/**
 * The logger's level from LOG_LEVEL, read here with the rest of the config (app-config.ts) and kept apart from it so
 * that a function that only logs (the receipt rule set's custom resource) does not bundle the whole config.
 */
export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** LOG_LEVEL in any case; INFO when unset or not a level. */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const level = env.LOG_LEVEL?.toUpperCase();
  return (LOG_LEVELS as readonly string[]).includes(level ?? '') ? (level as LogLevel) : 'INFO';
}
