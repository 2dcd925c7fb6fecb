/** The local S3 server (@20minutes/s3rver), files on disk, in this process. */
import fs from 'node:fs';
// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('@20minutes/s3rver');

export interface S3Local {
  endpoint: string;
  stop(): Promise<void>;
}

export async function startS3Local(options: { host: string; port: number; directory: string; bucket: string }): Promise<S3Local> {
  fs.mkdirSync(options.directory, { recursive: true });
  const server = new S3rver({
    address: options.host,
    port: options.port,
    directory: options.directory,
    silent: process.env.TEMPMAIL_S3_VERBOSE !== '1',
    allowMismatchedSignatures: true,
    vhostBuckets: false,
    configureBuckets: [{ name: options.bucket }],
  });
  // s3rver's DeleteObject also removes directories it sees empty, with a recursive rm; racing a PutObject into the
  // same directory, that rm deletes the new object after its PUT succeeded (seen under load: accepted mail lost).
  // Deleting only the object's own files keeps every PUT durable; empty directories are harmless.
  const store = server.store as { getResourcePath(bucket: string, key: string, name: string): string };
  (server.store as { deleteObject(bucket: string, key: string): Promise<void> }).deleteObject = async (bucket: string, key: string) => {
    await Promise.all(
      ['object', 'object.md5', 'metadata.json'].map((name) =>
        fs.promises.unlink(store.getResourcePath(bucket, key, name)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        }),
      ),
    );
  };
  await server.run();
  return {
    endpoint: `http://${options.host}:${options.port}`,
    async stop() {
      server.httpServer?.closeAllConnections?.();
      await server.close().catch(() => undefined);
    },
  };
}
