/**
 * Serves the web viewer (viewer/): its page at `/` and its bundled, content-hashed files under `/viewer/`, on the
 * API's own origin, so the viewer calls the API without CORS and the key never leaves that origin. The files are
 * read once from the folder the local stack built them into, or, deployed, from the folder the function's bundle
 * carries (lib/viewer.ts). Not an API route: no key, no JSON. The page's CSP lets it fetch from the origin of the
 * store's download links (lambdas/contract/viewer-policy.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { notFound } from '../core/errors';
import { errorReply } from '../contract/error-reply';
import { VIEWER_SECURITY_HEADERS, appCsp } from '../contract/viewer-policy';
import { currentContext, installedContext } from '../app/current';

/** The build's layout (viewer/build.ts writes it). */
export const VIEWER_INDEX = 'index.html';
export const VIEWER_ASSETS = 'assets';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

interface Asset {
  body: string;
  type: string;
}

const loaded = new Map<string, Map<string, Asset>>();

function assetsIn(dir: string): Map<string, Asset> {
  let files = loaded.get(dir);
  if (!files) {
    files = new Map();
    const read = (file: string, name: string) => files!.set(name, { body: fs.readFileSync(file, 'utf8'), type: TYPES[path.extname(file)] ?? 'application/octet-stream' });
    read(path.join(dir, VIEWER_INDEX), VIEWER_INDEX);
    for (const name of fs.readdirSync(path.join(dir, VIEWER_ASSETS))) read(path.join(dir, VIEWER_ASSETS, name), `${VIEWER_ASSETS}/${name}`);
    loaded.set(dir, files);
  }
  return files;
}

const viewerDir = () => installedContext()?.settings.viewerDir ?? path.join(__dirname, 'viewer');

function reply(status: number, requestId: string, body: string, headers: Record<string, string>): APIGatewayProxyResult {
  return { statusCode: status, headers: { ...VIEWER_SECURITY_HEADERS, 'X-Request-Id': requestId, ...headers }, body };
}

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const requestId = event.requestContext?.requestId ?? randomUUID();
  const asset = event.pathParameters?.asset;
  if (asset === undefined) {
    // Behind a stage (`/prod`), the page's relative links need the trailing slash.
    const stagePath = event.requestContext?.path ?? '/';
    if (!stagePath.endsWith('/')) return reply(301, requestId, '', { Location: `${stagePath.split('/').pop()}/`, 'Cache-Control': 'no-store' });
    const index = assetsIn(viewerDir()).get(VIEWER_INDEX)!;
    const csp = appCsp(await currentContext().stores.blobs.downloadOrigin());
    return reply(200, requestId, index.body, { 'Content-Type': index.type, 'Cache-Control': 'no-cache', 'Content-Security-Policy': csp });
  }
  const file = /^[\w.-]+$/.test(asset) ? assetsIn(viewerDir()).get(`${VIEWER_ASSETS}/${asset}`) : undefined;
  if (!file) {
    const missing = errorReply(notFound(`no such viewer file: ${asset}`), requestId);
    return reply(missing.status, requestId, missing.body, missing.headers);
  }
  // File names carry their content's hash: a name always means the same bytes.
  return reply(200, requestId, file.body, { 'Content-Type': file.type, 'Cache-Control': 'public, max-age=31536000, immutable' });
}
