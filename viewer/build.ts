/**
 * Builds the web viewer (viewer/src, Preact) with esbuild into a folder: `index.html` and content-hashed files under
 * `assets/`. The local stack runs it at every start (into its data folder), the CDK app at synth (into the viewer
 * function's bundle, lib/viewer.ts); nothing is fetched from anywhere at run time. Synchronous: about 100 ms.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

const SOURCE = path.join(__dirname, 'src');
/** The layout lambdas/api/get-viewer.ts serves: the page, and the files it names under `viewer/` (relative). */
const INDEX = 'index.html';
const ASSETS = 'assets';

export interface ViewerBuild {
  dir: string;
  /** Asset file names, e.g. `app-3GQ7T2QK.js`. */
  files: string[];
  /** Bytes of each file, uncompressed. */
  sizes: Record<string, number>;
}

export function buildViewer(outDir: string): ViewerBuild {
  fs.rmSync(outDir, { recursive: true, force: true });
  const assetsDir = path.join(outDir, ASSETS);
  const result = buildSync({
    entryPoints: [path.join(SOURCE, 'app.tsx')],
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome111', 'firefox111', 'safari16.4'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const files = Object.keys(result.metafile!.outputs).map((file) => path.basename(file));
  const js = files.find((f) => f.endsWith('.js'));
  const css = files.find((f) => f.endsWith('.css'));
  if (!js || !css) throw new Error(`viewer build produced ${files.join(', ')}: expected one .js and one .css`);
  // Relative references: behind an API Gateway stage the page lives at /prod/, not at /.
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>TempMail</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="viewer/${css}">
<script type="module" src="viewer/${js}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The TempMail viewer needs JavaScript.</noscript>
</body>
</html>
`;
  fs.writeFileSync(path.join(outDir, INDEX), html);
  const sizes: Record<string, number> = { [INDEX]: Buffer.byteLength(html) };
  for (const file of files) sizes[file] = fs.statSync(path.join(assetsDir, file)).size;
  return { dir: outDir, files, sizes };
}
