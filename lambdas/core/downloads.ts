/**
 * How stored content is served: as data, never as a page. Mail is written by strangers, so a download link names
 * its own Content-Type and Content-Disposition (S3's response overrides on AWS, the signed link locally) instead of
 * trusting what the sender declared: an attachment is downloaded, not rendered, unless it is an image on a short
 * allow-list (never SVG, which runs scripts), and a type off the allow-list is served as octet-stream.
 */
import type { MessageRecord } from './model';
import type { DownloadHeaders } from './ports';
import { wellFormed } from './message';

/** The path under which the local gateway serves the links the embedded store signs (on AWS, S3 serves them). */
export const DOWNLOAD_PATH = '/_downloads/';

/**
 * Why a message's raw form and attachments are not served, or null: mail SES's virus scan failed is kept (listed,
 * readable as text, its `auth.virus` saying FAIL) but none of its bytes are handed out, so a test inbox never
 * becomes a way to pass malware on. The raw route answers 403 with this; attachments get no link.
 */
export const downloadRefusal = (message: Pick<MessageRecord, 'id' | 'auth'>): string | null =>
  message.auth?.virus === 'FAIL' ? `message ${message.id} failed the virus scan (auth.virus FAIL): its raw form and attachments are not served` : null;

/** Images a browser may show inline: none of them can run script. */
const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

/** Types served as declared (as downloads); anything else is application/octet-stream. */
const SERVED_TYPES = new Set([
  ...INLINE_IMAGE_TYPES,
  'application/pdf',
  'application/zip',
  'application/json',
  'text/plain',
  'text/csv',
  'text/calendar',
  'message/rfc822',
]);

export const MAX_NAME_CHARS = 120;

/**
 * The file name reduced to a safe base name: no path, no control or quoting characters, bounded length, well-formed
 * Unicode (a mail can name a file in UTF-16 with half a character: it becomes U+FFFD).
 */
export function safeFileName(name: string | null | undefined, fallback: string): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f"*:<>?|;]/g, '_')
    .replace(/^[.\s]+|[.\s]+$/g, '')
    .slice(0, MAX_NAME_CHARS);
  return wellFormed(cleaned) || fallback;
}

/** RFC 6266: an ASCII fallback name and the exact name in RFC 5987 encoding. */
export function contentDisposition(kind: 'attachment' | 'inline', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/[\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

const mediaType = (contentType: string): string => contentType.split(';')[0].trim().toLowerCase();

export function attachmentDownload(attachment: { id: string; filename: string | null; content_type: string }): DownloadHeaders {
  const type = mediaType(attachment.content_type);
  const served = SERVED_TYPES.has(type) ? type : 'application/octet-stream';
  const name = safeFileName(attachment.filename, attachment.id);
  return { contentType: served, contentDisposition: contentDisposition(INLINE_IMAGE_TYPES.has(type) ? 'inline' : 'attachment', name) };
}

export function rawDownload(messageId: string): DownloadHeaders {
  return { contentType: 'message/rfc822', contentDisposition: contentDisposition('attachment', `${messageId}.eml`) };
}
