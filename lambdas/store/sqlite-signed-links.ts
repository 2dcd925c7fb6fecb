/**
 * The embedded form's download links, standing in for S3's presigned GETs: HMAC-SHA256 over the object key, the
 * expiry and the response headers with a secret kept in the data folder, so an edited link (another object, other
 * headers, a later expiry) is refused, like S3's. The gateway serves them at DOWNLOAD_PATH (core/downloads.ts).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DOWNLOAD_PATH } from '../core/downloads';
import type { DownloadHeaders } from '../core/ports';

const SECRET_FILE = 'download-signing.key';

export class SignedLinks {
  constructor(
    private readonly secret: Buffer,
    private readonly publicUrl: string,
  ) {}

  private signature(key: string, expires: string, headers: DownloadHeaders): Buffer {
    return createHmac('sha256', this.secret).update([key, expires, headers.contentType, headers.contentDisposition].join('\n')).digest();
  }

  /** The origin every link is on: the stack's public URL's. */
  get origin(): string {
    return new URL(this.publicUrl).origin;
  }

  sign(key: string, expiresInSeconds: number, response: DownloadHeaders): string {
    const expires = String(Math.floor(Date.now() / 1000) + expiresInSeconds);
    const query = new URLSearchParams({
      expires,
      type: response.contentType,
      disposition: response.contentDisposition,
      signature: this.signature(key, expires, response).toString('base64url'),
    });
    return `${this.publicUrl}${DOWNLOAD_PATH}${key.split('/').map(encodeURIComponent).join('/')}?${query}`;
  }

  /** The object key and headers a link names, when its signature holds and it has not expired; otherwise 'forbidden'. */
  verify(pathname: string, query: URLSearchParams, nowMs: number): { key: string; headers: DownloadHeaders } | 'forbidden' {
    if (!pathname.startsWith(DOWNLOAD_PATH)) return 'forbidden';
    let key: string;
    try {
      key = pathname.slice(DOWNLOAD_PATH.length).split('/').map(decodeURIComponent).join('/');
    } catch {
      return 'forbidden';
    }
    const expires = query.get('expires') ?? '';
    const headers = { contentType: query.get('type') ?? '', contentDisposition: query.get('disposition') ?? '' };
    // Compared as text: decoding would accept edited links (base64 ignores stray characters and the last one's spare bits).
    const given = Buffer.from(query.get('signature') ?? '');
    const wanted = Buffer.from(this.signature(key, expires, headers).toString('base64url'));
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'forbidden';
    if (!/^\d+$/.test(expires) || Number(expires) * 1000 <= nowMs) return 'forbidden';
    return { key, headers };
  }
}

/** The secret download links are signed with: made once, kept in the data folder, readable by its owner only. */
export function signingSecret(dataDir: string): Buffer {
  const file = path.join(dataDir, SECRET_FILE);
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32);
  fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return fs.readFileSync(file);
}
