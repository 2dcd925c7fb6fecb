/** Starts the local S3 server (s3-server.ts) in a child process and waits until it serves. */
import { fork } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { S3ServerOptions } from './s3-server';

export interface S3Local {
  endpoint: string;
  /** The server's process (for CPU and memory readings). */
  pid?: number;
  stop(): Promise<void>;
}

export async function startS3Local(options: S3ServerOptions): Promise<S3Local> {
  const entry = path.join(__dirname, 's3-server.ts');
  const child = fork(entry, [JSON.stringify(options)], {
    execArgv: ['--import', pathToFileURL(require.resolve('tsx')).href],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the local S3 server did not start in 30 s')), 30_000);
    child.once('message', (message: { ready?: boolean; error?: string }) => {
      clearTimeout(timer);
      if (message.ready) resolve();
      else reject(new Error(`the local S3 server failed to start: ${message.error}`));
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error('the local S3 server exited at start-up'));
    });
  }).catch((error: Error) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    endpoint: `http://${options.host}:${options.port}`,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
