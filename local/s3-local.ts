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
    silent: true,
    allowMismatchedSignatures: true,
    vhostBuckets: false,
    configureBuckets: [{ name: options.bucket }],
  });
  await server.run();
  return {
    endpoint: `http://${options.host}:${options.port}`,
    async stop() {
      server.httpServer?.closeAllConnections?.();
      await server.close().catch(() => undefined);
    },
  };
}
