/** BlobStore on S3 (or the local S3 server). */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobStore } from '../core/ports';
import { bucketName, s3Client } from './clients';
import { guard } from './guard';

export class S3BlobStore implements BlobStore {
  constructor(
    private readonly s3: S3Client = s3Client(),
    private readonly bucket: string = bucketName(),
  ) {}

  private call<T>(fn: () => Promise<T>): Promise<T> {
    return guard('S3', fn);
  }

  async put(key: string, body: Uint8Array | string, contentType: string): Promise<void> {
    await this.call(() => this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType })));
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const out = await this.call(() => this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key })));
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
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
    let token: string | undefined;
    do {
      const page = await this.call(() =>
        this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token })),
      );
      for (const object of page.Contents ?? []) if (object.Key) found.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found;
  }

  async deletePrefix(prefix: string): Promise<number> {
    const all = await this.list(prefix);
    for (let i = 0; i < all.length; i += 1000) {
      const chunk = all.slice(i, i + 1000);
      await this.call(() =>
        this.s3.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } })),
      );
    }
    return all.length;
  }

  async presignGet(key: string, expiresInSeconds: number, downloadName?: string | null): Promise<string> {
    const disposition = downloadName ? `attachment; filename*=UTF-8''${encodeURIComponent(downloadName)}` : undefined;
    return getSignedUrl(this.s3, new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentDisposition: disposition }), {
      expiresIn: expiresInSeconds,
    });
  }
}
