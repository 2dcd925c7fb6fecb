#!/usr/bin/env node
// `npx tempmail`: runs the TypeScript CLI (bin/tempmail.ts) through tsx, so no build step stands between a clone
// and the command. This folder is an npm workspace so that `npm ci` links the command into node_modules/.bin.
require('tsx/cjs');
require('../../bin/tempmail.ts');
