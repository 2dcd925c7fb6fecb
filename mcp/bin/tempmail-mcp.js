#!/usr/bin/env node
// `tempmail-mcp`: starts the bundled server (dist/index.js). The bundle is built by the package's prepare script,
// which npm runs for this workspace on `npm ci` at the repository root, and it is what the published package ships.
// Should it be missing (an install with --ignore-scripts), say how to build it instead of a stack trace.
'use strict';
const path = require('node:path');
const bundle = path.join(__dirname, '..', 'dist', 'index.js');
if (!require('node:fs').existsSync(bundle)) {
  process.stderr.write(`tempmail-mcp: ${bundle} is not built; run \`npm run build -w mcp\` at the repository root.\n`);
  process.exit(1);
}
require(bundle);
