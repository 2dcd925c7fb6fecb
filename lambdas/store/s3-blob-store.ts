/** BlobStore on S3 (or the local S3 server). */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { cutJson } from '../core/message';
import { isChunks, isHeld, type BlobBody, type BlobStore, type CutJson, type DownloadHeaders } from '../core/ports';
import { standInSettings } from '../layout/stand-ins';
import { requestHandler } from './clients';
import { guard } from './guard';

let s3: S3Client | undefined;

/** One client per container on AWS; one per stand-in endpoint locally (path-style: the S3 server has no DNS). */
export function s3Client(endpoint?: string): S3Client {
  if (endpoint) return new S3Client({ forcePathStyle: true, maxAttempts: 2, requestHandler, ...standInSettings(endpoint) });
  s3 ??= new S3Client({ maxAttempts: 2, requestHandler });
  return s3;
}

/**
 * 404, or 403 on a read: the functions' ListBucket is limited to a prefix (lib/functions.ts), and S3 answers a missing
 * key with 403 to a role that may not list it, while the same role may read every key that exists there.
 */
const isMissing = (error: unknown): boolean => {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return ['NoSuchKey', 'NotFound', 'AccessDenied', 'Forbidden'].includes((error as Error).name) || status === 404 || status === 403;
};

export class S3BlobStore implements BlobStore {
  private origin?: string;

  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  private call<T>(fn: () => Promise<T>): Promise<T> {
    return guard('S3', fn);
  }

  /** S3 documents InternalError as retryable; the local S3 server answers it when a listing races a delete. */
  private async withRetry<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if ((error as Error).name !== 'InternalError' || attempt >= 4) throw error;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  async put(key: string, body: BlobBody, contentType: string, metadata?: Record<string, string>): Promise<void> {
    const bytes = isChunks(body) ? Buffer.concat(body) : isHeld(body) ? body.bytes() : body;
    await this.call(() => this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType, Metadata: metadata })));
  }

  /** Parsed here: a function serves one event at a time. */
  async getJson(key: string, maxStringChars: number): Promise<CutJson | null> {
    const bytes = await this.get(key);
    return bytes ? cutJson(bytes.toString('utf8'), maxStringChars) : null;
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const out = await this.call(() => this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key })));
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async head(key: string): Promise<Record<string, string> | null> {
    try {
      const out = await this.call(() => this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
      return out.Metadata ?? {};
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    await this.call(() =>
      this.s3.send(new CopyObjectCommand({ Bucket: this.bucket, Key: toKey, CopySource: `${this.bucket}/${encodeURIComponent(fromKey).replace(/%2F/g, '/')}` })),
    );
  }

  async delete(key: string): Promise<void> {
    await this.call(() => this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  async list(prefix: string): Promise<string[]> {
    const found: string[] = [];
    // ListObjects (v1) with Marker, not v2: the local S3 server makes v2 continuation tokens with DES, which
    // OpenSSL 3 refuses, so every listing past 1,000 keys failed there. Both are S3 API.
    for (let marker: string | undefined; ; ) {
      const page = await this.withRetry(() =>
        this.call(() => this.s3.send(new ListObjectsCommand({ Bucket: this.bucket, Prefix: prefix, Marker: marker }))),
      );
      const keys = (page.Contents ?? []).map((o) => o.Key).filter((k): k is string => !!k);
      found.push(...keys);
      if (!page.IsTruncated || keys.length === 0) return found;
      marker = keys[keys.length - 1];
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    const all = await this.list(prefix);
    for (let i = 0; i < all.length; i += 1000) {
      const chunk = all.slice(i, i + 1000);
      await this.withRetry(() =>
        this.call(() => this.s3.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } }))),
      );
    }
    return all.length;
  }

  /** S3's response overrides make the object's headers those of the link, whatever the object was stored with. */
  async presignGet(key: string, expiresInSeconds: number, response: DownloadHeaders): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentType: response.contentType,
      ResponseContentDisposition: response.contentDisposition,
      ResponseCacheControl: 'no-store',
    });
    return getSignedUrl(this.s3, command, { expiresIn: expiresInSeconds });
  }

  /**
   * Asked of the SDK that makes the links, by signing one (no request is sent): its endpoint rules decide the host
   * (`<bucket>.s3.<region>.amazonaws.com`, `.com.cn` in China, path-style on a stand-in's IP endpoint).
   */
  async downloadOrigin(): Promise<string> {
    this.origin ??= new URL(await getSignedUrl(this.s3, new GetObjectCommand({ Bucket: this.bucket, Key: 'origin' }), { expiresIn: 60 })).origin;
    return this.origin;
  }
}
