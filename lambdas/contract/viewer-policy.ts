/**
 * The viewer's security policies, stated once: the page's response headers (lambdas/api/get-viewer.ts) and the
 * policy each rendered message runs under (viewer/src/message-frame.ts).
 *
 * Mail is hostile. A message's HTML renders in an iframe with `sandbox` (no scripts, no same-origin, no forms, no
 * top navigation) from `srcdoc`, under its own CSP that loads nothing from outside unless the reader asks for remote
 * images. A srcdoc frame also inherits the page's CSP, so the page's policy must allow what a message frame may be
 * allowed (inline styles, images from anywhere); the page itself runs only its own bundled script, renders no markup
 * from data (Preact escapes text) and talks to nothing but the API and the origin of the API's download links.
 *
 * That origin is the page's to allow: the raw tab follows GET …/raw's redirect to a pre-signed URL, which deployed is
 * S3's bucket host (another origin than API Gateway's), and CSP checks a redirect's target too. With `connect-src
 * 'self'` alone the browser blocked it and the raw tab never loaded, on AWS as in the template form.
 */
export function appCsp(downloadOrigin?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: http: https:",
    "font-src 'self' data:",
    `connect-src 'self'${downloadOrigin ? ` ${downloadOrigin}` : ''}`,
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of every viewer response besides its type and caching (the page's own CSP adds the download origin). */
export const VIEWER_SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': appCsp(),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** The sandbox of a message frame: links may open a new tab (which escapes the sandbox, as a link should). */
export const MESSAGE_FRAME_SANDBOX = 'allow-popups allow-popups-to-escape-sandbox';

/**
 * A message frame's own CSP. Nothing loads but inline styles and data: images, plus the message's own inline
 * parts (`cid:` images, served from `partsOrigin`); `remoteImages` adds images from anywhere, for that message.
 */
export function messageFrameCsp(options: { remoteImages: boolean; partsOrigin?: string }): string {
  const images = ['data:', ...(options.partsOrigin ? [options.partsOrigin] : []), ...(options.remoteImages ? ['http:', 'https:'] : [])];
  return ["default-src 'none'", "style-src 'unsafe-inline'", `img-src ${images.join(' ')}`, 'font-src data:', "form-action 'none'", "base-uri 'none'"].join('; ');
}
