/**
 * RE2's WebAssembly file (re2-wasm), which core/wait-conditions.ts loads from beside its module when it compiles a
 * pattern: re2-wasm reads `re2.wasm` from its own directory, which in a bundle is the bundle's. Every build of a
 * function whose route says `re2` (lambdas/layout/functions.ts) copies it there: the CDK bundling below, the local
 * bundles (scripts/bundle-lambdas.ts) and the npm package (scripts/build-package.ts).
 */
import path from 'node:path';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';

export const RE2_WASM_NAME = 're2.wasm';
export const RE2_WASM_FILE = path.join(path.dirname(require.resolve('re2-wasm/package.json')), 'build', 'wasm', RE2_WASM_NAME);

/** Bundling additions for a function that runs RE2: the file copied beside `index.js`. */
export function re2Bundling(): Pick<BundlingOptions, 'commandHooks'> {
  return {
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir: string, outputDir: string) => [`cp "${RE2_WASM_FILE}" "${path.join(outputDir, RE2_WASM_NAME)}"`],
    },
  };
}
