/**
 * Starts the local S3 server (s3-server.ts) in a child process, waits until it serves, and restarts it should it
 * die on its own (the stack answers 503 / 451 meanwhile, as with any S3 outage, and recovers by itself).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { s3ServerVerbose } from '../lambdas/config/process-env';
import type { S3ServerOptions } from './s3-server';
import { exitOf, supervise } from './supervisor';

export interface S3Local {
  endpoint: string;
  /** The server's current process (for CPU and memory readings, and fault tests). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

async function launch(options: S3ServerOptions): Promise<ChildProcess> {
  const child = fork(path.join(__dirname, 's3-server.ts'), [JSON.stringify(options)], {
    execArgv: ['--import', pathToFileURL(require.resolve('tsx')).href],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('error', (error) => console.error(`[s3] ${error.message}`)); // a failed fork or IPC write: not fatal here
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the local S3 server did not start in 30 s')), 30_000);
    child.once('message', (message: { ready?: boolean; error?: string }) => {
      clearTimeout(timer);
      if (message.ready) resolve();
      else reject(new Error(`the local S3 server failed to start: ${message.error}`));
    });
    void exitOf(child).then(() => {
      clearTimeout(timer);
      reject(new Error('the local S3 server exited at start-up'));
    });
  }).catch((error: Error) => {
    child.kill('SIGKILL');
    throw error;
  });
  return child;
}

export async function startS3Local(options: S3ServerOptions, log: (line: string) => void = console.error): Promise<S3Local> {
  const server = await supervise('s3', 'the S3 server', () => launch({ ...options, verbose: options.verbose ?? s3ServerVerbose() }), log);
  return {
    endpoint: `http://${options.host}:${options.port}`,
    get pid() {
      return server.child.pid;
    },
    stop: () => server.stop(),
  };
}
