/**
 * The process environment's settings that are not the app's config (app-config.ts) but the process's own: where the
 * admin CLI's data folder is, whether it runs in Lambda, whether the S3 server logs its requests, and the AWS SDK's and Powertools' switches
 * this process sets before it loads them. Apart from app-config.ts so that reading them loads no zod. The lint
 * (eslint.config.mjs) lets only the config modules touch process.env; every other module calls these.
 */
import path from 'node:path';

/** TEMPMAIL_DATA_DIR resolved, or undefined when unset (the caller's default applies). */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.TEMPMAIL_DATA_DIR ? path.resolve(env.TEMPMAIL_DATA_DIR) : undefined;
}

/** Whether this process is a Lambda execution environment (Lambda sets AWS_LAMBDA_FUNCTION_NAME; the local stack's own process never does). */
export const inLambdaEnvironment = (env: NodeJS.ProcessEnv = process.env): boolean => Boolean(env.AWS_LAMBDA_FUNCTION_NAME);

/** TEMPMAIL_S3_VERBOSE=1: the S3 server (dynamodb form) prints its request log. */
export const s3ServerVerbose = (env: NodeJS.ProcessEnv = process.env): boolean => env.TEMPMAIL_S3_VERBOSE === '1';

/**
 * Quiets what this process's libraries print that means nothing on one machine: the SDK's Node 20 end-of-support
 * notice (Lambda runs Node 22) and, with `metrics`, Powertools' CloudWatch embedded metrics. A value set already is kept.
 */
export function quietLibraries(options: { metrics?: boolean } = {}, env: NodeJS.ProcessEnv = process.env): void {
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (options.metrics) env.POWERTOOLS_METRICS_DISABLED ??= 'true';
}

/** Sets variables of this process's environment (the endpoints and credentials its AWS SDK clients then use). */
export function setProcessEnv(vars: Record<string, string>, env: NodeJS.ProcessEnv = process.env): void {
  Object.assign(env, vars);
}

/** This process's PATH: the template form hands it on to each function's process (local/aws/functions.ts). */
export const searchPath = (env: NodeJS.ProcessEnv = process.env): string | undefined => env.PATH;
