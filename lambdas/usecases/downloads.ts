/**
 * The download links the local gateway serves (the embedded store signs them; on AWS S3 serves its own pre-signed
 * URLs). A link is checked first (403 for an edited or expired one), then the gateway applies its download limits to
 * the link's owner, then the object is opened as a stream (404 once it is gone): a 29 MB attachment is sent in
 * chunks read from its file, never held whole in memory, or only the byte range a `Range` header asks for.
 */
import { byteRange, contentRange, type RangeAnswer } from '../core/byte-range';
import { ApiError, forbidden, notFound } from '../core/errors';
import { blobKeys, type DownloadHeaders, type StoredStream } from '../core/ports';
import type { AppContext } from './context';

export interface DownloadLink {
  key: string;
  headers: DownloadHeaders;
  /** The account whose inbox holds the object (null: not an inbox's object, or its inbox is gone). */
  accountId: string | null;
}

export async function downloadLink(ctx: AppContext, path: string, query: URLSearchParams): Promise<DownloadLink> {
  const link = ctx.stores.downloads ? ctx.stores.downloads.verify(path, query, ctx.now()) : 'forbidden';
  if (link === 'forbidden') throw forbidden('this download link is invalid or has expired');
  const inboxId = link.key.startsWith(blobKeys.INBOXES_PREFIX) ? link.key.slice(blobKeys.INBOXES_PREFIX.length).split('/')[0] : '';
  const inbox = inboxId ? await ctx.stores.inboxes.getInbox(inboxId) : null;
  return { ...link, accountId: inbox?.account_id ?? null };
}

/**
 * The object, or only the byte range a `Range` header asks for (its `span`), as S3 answers (core/byte-range.ts):
 * 416 with `Content-Range: bytes *\/size` for a range past the end.
 */
export async function openDownload(ctx: AppContext, link: DownloadLink, range?: string): Promise<StoredStream> {
  const picked: { answer: RangeAnswer } = { answer: { kind: 'whole' } };
  const opened = await ctx.stores.downloads!.openStream(link.key, (size) => {
    picked.answer = byteRange(range, size);
    return picked.answer.kind === 'part' ? picked.answer : undefined;
  });
  if (!opened) throw notFound('this object is no longer stored');
  if (picked.answer.kind === 'unsatisfiable') {
    opened.body.destroy();
    throw new ApiError(416, `the range "${range}" is not satisfiable: the object has ${opened.size} bytes`, { 'Content-Range': contentRange(opened.size) });
  }
  return opened;
}
