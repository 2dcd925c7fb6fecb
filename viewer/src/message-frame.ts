/**
 * Turns a message's HTML into the `srcdoc` of its sandboxed frame. The sandbox (no scripts, no same-origin, no
 * forms) and the frame's CSP (lambdas/contract/viewer-policy.ts) are what make hostile mail inert; this pass adds what
 * they cannot: meta refreshes and <base> removed, links opening a new tab with noopener (and only http(s)/mailto
 * links at all), inline `cid:` images pointed at their attachment. DOMParser builds a document with no browsing
 * context, so parsing fetches and runs nothing.
 */
import { messageFrameCsp } from '../../lambdas/contract/viewer-policy';

export interface FramePart {
  content_id: string | null;
  /** Null when the part is not served (a message that failed the virus scan). */
  download_url: string | null;
}

const SAFE_LINK = /^(https?:|mailto:)/i;

export function frameDocument(html: string, options: { remoteImages: boolean; parts: FramePart[] }): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('script, meta[http-equiv], base, iframe, frame, frameset, object, embed, link[rel~="import" i]').forEach((el) => el.remove());
  for (const link of doc.querySelectorAll<HTMLAnchorElement | HTMLAreaElement>('a[href], area[href]')) {
    if (!SAFE_LINK.test(link.getAttribute('href')!.trim())) link.removeAttribute('href');
    link.setAttribute('target', '_blank');
    link.setAttribute('rel', 'noopener noreferrer');
  }
  let partsOrigin: string | undefined;
  for (const img of doc.querySelectorAll<HTMLImageElement>('img[src^="cid:" i]')) {
    const cid = img.getAttribute('src')!.slice(4).trim();
    const part = options.parts.find((p) => p.content_id && p.content_id.replace(/^<|>$/g, '') === cid);
    if (!part?.download_url) continue;
    img.setAttribute('src', part.download_url);
    partsOrigin = new URL(part.download_url).origin;
  }
  const head = doc.head;
  const csp = doc.createElement('meta');
  csp.httpEquiv = 'Content-Security-Policy';
  csp.content = messageFrameCsp({ remoteImages: options.remoteImages, partsOrigin });
  const referrer = doc.createElement('meta');
  referrer.name = 'referrer';
  referrer.content = 'no-referrer';
  // First in <head>: the policy governs everything after it.
  head.prepend(csp, referrer);
  return `<!doctype html>${doc.documentElement.outerHTML}`;
}

/** Whether the HTML refers to images outside the message (what the remote-images switch would load). */
export function hasRemoteImages(html: string): boolean {
  return /<img\b[^>]*\bsrc\s*=\s*["']?\s*https?:/i.test(html) || /url\(\s*["']?\s*https?:/i.test(html) || /\bbackground\s*=\s*["']?\s*https?:/i.test(html);
}
