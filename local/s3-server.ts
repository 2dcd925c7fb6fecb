/**
 * The local S3 server (@20minutes/s3rver), files on disk. Run in a process of its own (see s3-local.ts): it costs
 * about as much CPU per request as the SDK calling it, and on its own process it uses a core the stack leaves idle.
 */
import fs from 'node:fs';
// s3rver ships no types.
const S3rver = require('@20minutes/s3rver');

export interface S3ServerOptions {
  host: string;
  port: number;
  directory: string;
  bucket: string;
  /** Prints the server's request log (default: local/config's TEMPMAIL_S3_VERBOSE, read by the process starting it). */
  verbose?: boolean;
}

export async function runS3Server(options: S3ServerOptions): Promise<{ close(): Promise<void> }> {
  fs.mkdirSync(options.directory, { recursive: true, mode: 0o700 });
  const server = new S3rver({
    address: options.host,
    port: options.port,
    directory: options.directory,
    silent: !options.verbose,
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
    async close() {
      server.httpServer?.closeAllConnections?.();
      await server.close().catch(() => undefined);
    },
  };
}

// As a child process: options from the parent, readiness back over IPC, and gone with the parent (even after its
// SIGKILL the IPC channel closes, so no server is left holding the port and the files).
if (require.main === module && process.send) {
  const options = JSON.parse(process.argv[2]) as S3ServerOptions;
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  // Ctrl-C reaches the whole process group; the parent decides when this server stops (SIGTERM), so a stop never
  // looks like a crash to its supervisor.
  process.on('SIGINT', () => undefined);
  runS3Server(options).then(
    () => process.send!({ ready: true }),
    (error: Error) => {
      process.send!({ error: error.message });
      process.exit(1);
    },
  );
}
