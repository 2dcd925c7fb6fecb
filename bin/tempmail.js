#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so no build step stands between a clone and the command.
require('tsx/cjs');
require('./tempmail.ts');
