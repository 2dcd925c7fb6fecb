/**
 * esbuild options for every function, shared by the CDK construct (NodejsFunction) and scripts/bundle-lambdas.ts,
 * so the bundles the local end-to-end tests load are built exactly the way they deploy.
 */
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as lambda from 'aws-cdk-lib/aws-lambda';

/** Pinned, not "latest": a runtime change is a reviewed change. */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_22_X;
export const ESBUILD_TARGET = 'node22';

/**
 * The Node.js 22 runtime ships AWS SDK v3, so `@aws-sdk/*` stays out of the bundles: every API bundle would
 * otherwise carry several hundred KB of SDK (longer cold starts). docs/DEPLOY.md has the trade-off.
 */
export const EXTERNAL_MODULES = ['@aws-sdk/*'];

export const BUNDLING: BundlingOptions = {
  minify: true,
  sourceMap: false,
  target: ESBUILD_TARGET,
  format: OutputFormat.CJS,
  externalModules: EXTERNAL_MODULES,
  // middy is ESM-only; preferring `module` lets esbuild bundle it (and tree-shake ESM packages) into the CJS output.
  mainFields: ['module', 'main'],
};

/** Every handler module that deploys as a function: one per route, the authorizer and the SES ingest handler. */
export function deployedHandlers(routes: readonly { handler: string }[], extra: readonly string[]): string[] {
  return [...new Set([...routes.map((r) => r.handler), ...extra])];
}

/**
 * BUNDLING as esbuild's own build options (what NodejsFunction passes on its command line), for
 * scripts/bundle-lambdas.ts and the bench. Kept beside BUNDLING so the two cannot drift.
 */
export function esbuildOptions(entry: string, outfile: string) {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node' as const,
    target: BUNDLING.target,
    format: BUNDLING.format === OutputFormat.ESM ? ('esm' as const) : ('cjs' as const),
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    external: [...(BUNDLING.externalModules ?? [])],
    mainFields: [...(BUNDLING.mainFields ?? [])],
    logLevel: 'warning' as const,
  };
}
