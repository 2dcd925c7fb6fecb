/**
 * The local gateway's download links (S3's pre-signed URLs on AWS): the object with the headers its link names, as
 * data, streamed from its file in chunks as the client reads (8 parallel GETs of a 29 MB attachment, each read whole
 * into memory, once held the event loop 8.4 s and every other request with it).
 *
 * A link needs no key and lives for minutes, so it passes no authorizer and no plan's bucket: downloads have limits
 * of their own, per client address and per account (the owner of the inbox the object is in, whichever of its keys
 * asked for the link): a bucket of requests and a number of downloads in flight each. Beyond either, 429 in the API's
 * error format with Retry-After. TEMPMAIL_RATE_LIMITS=off turns them off with the plans' buckets. A Range header is
 * answered as S3 answers it (lambdas/core/byte-range.ts).
 */
import { contentRange } from '../lambdas/core/byte-range';
import { ApiError } from '../lambdas/core/errors';
import type { StoredStream } from '../lambdas/core/ports';
import type { AppContext } from '../lambdas/usecases/context';
import { downloadLink, openDownload } from '../lambdas/usecases/downloads';
import { TokenBuckets } from './rate-limiter';

export interface DownloadLimit {
  /** Downloads started at once (a bucket of this many requests)… */
  burst: number;
  /** …refilled at this many per second. */
  perSecond: number;
  /** Downloads being sent at the same time. */
  concurrent: number;
}

/** Per client address: a browser opens at most 6 connections to a host, so a page of inline images still loads. */
export const DOWNLOADS_PER_ADDRESS: DownloadLimit = { burst: 30, perSecond: 3, concurrent: 6 };
/** Per account, over every address its links are used from. */
export const DOWNLOADS_PER_ACCOUNT: DownloadLimit = { burst: 60, perSecond: 6, concurrent: 12 };

/** One limit's buckets and in-flight counts, by client address or by account. */
class Limiter {
  private readonly buckets: TokenBuckets;
  private readonly inFlight = new Map<string, number>();

  constructor(
    readonly limit: DownloadLimit,
    now?: () => number,
  ) {
    this.buckets = new TokenBuckets(now);
  }

  /** 0 and one download counted in flight (give it back with `release`); else the seconds to wait. */
  admit(id: string): number {
    if ((this.inFlight.get(id) ?? 0) >= this.limit.concurrent) return 1;
    const wait = this.buckets.takeAt(id, this.limit.perSecond, this.limit.burst);
    if (wait === 0) this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
    return wait;
  }

  release(id: string): void {
    const left = (this.inFlight.get(id) ?? 1) - 1;
    if (left > 0) this.inFlight.set(id, left);
    else this.inFlight.delete(id);
  }
}

/** A download's answer: its status (206 for a byte range), headers and the object's stream, with `done` to call once the response has ended. */
export interface DownloadReply {
  status: 200 | 206;
  headers: Record<string, string>;
  stream: StoredStream;
  done: () => void;
}

export class DownloadLimits {
  readonly byAddress: Limiter;
  readonly byAccount: Limiter;

  constructor(now?: () => number) {
    this.byAddress = new Limiter(DOWNLOADS_PER_ADDRESS, now);
    this.byAccount = new Limiter(DOWNLOADS_PER_ACCOUNT, now);
  }

  /** Admits a download from `address` of an object of `accountId`: a release function, or the refusal's message and wait. */
  admit(address: string, accountId: string | null): { release: () => void } | { refused: string; wait: number } {
    const byAddress = this.byAddress.admit(address);
    if (byAddress > 0) return { refused: `too many downloads from ${address}; at most ${DOWNLOADS_PER_ADDRESS.concurrent} at once and ${DOWNLOADS_PER_ADDRESS.perSecond} a second`, wait: byAddress };
    if (accountId === null) return { release: () => this.byAddress.release(address) };
    const byAccount = this.byAccount.admit(accountId);
    if (byAccount > 0) {
      this.byAddress.release(address);
      return { refused: `too many downloads of this account's mail; at most ${DOWNLOADS_PER_ACCOUNT.concurrent} at once and ${DOWNLOADS_PER_ACCOUNT.perSecond} a second`, wait: byAccount };
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.byAddress.release(address);
        this.byAccount.release(accountId);
      },
    };
  }
}

/**
 * A signed download link's answer, the whole object or the one byte range `range` (a Range header) asks for, or an
 * ApiError: 403 (edited or expired), 404 (gone), 416 (a range past the end), 429 with Retry-After past a limit
 * (`limits` undefined: none).
 */
export async function serveDownload(ctx: AppContext, url: URL, address: string, limits: DownloadLimits | undefined, range?: string): Promise<DownloadReply> {
  const link = await downloadLink(ctx, url.pathname, url.searchParams);
  const admission = limits?.admit(address, link.accountId) ?? { release: () => undefined };
  if ('refused' in admission) throw new ApiError(429, admission.refused, { 'Retry-After': String(admission.wait) });
  try {
    const stream = await openDownload(ctx, link, range);
    return {
      status: stream.span ? 206 : 200,
      headers: {
        ...(stream.span ? { 'Content-Range': contentRange(stream.size, stream.span) } : {}),
        'Accept-Ranges': 'bytes',
        'Content-Type': link.headers.contentType,
        'Content-Disposition': link.headers.contentDisposition,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        // As the deployed bucket's CORS rules (lib/storage.ts): a page on another origin than the link's (the viewer
        // opened at localhost, links on 127.0.0.1) may read it. The signature, not the origin, grants access.
        'Access-Control-Allow-Origin': '*',
      },
      stream,
      done: admission.release,
    };
  } catch (error) {
    admission.release();
    throw error;
  }
}
