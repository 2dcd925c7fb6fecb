/**
 * Starts the local S3 server (s3-server.ts) in a child process, waits until it serves, and restarts it should it
 * die on its own (the stack answers 503 / 451 meanwhile, as with any S3 outage, and recovers by itself).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { S3ServerOptions } from './s3-server';

export interface S3Local {
  endpoint: string;
  /** The server's current process (for CPU and memory readings, and fault tests). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

const exitOf = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

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
  let child = await launch(options);
  let stopping = false;
  let relaunching: Promise<void> | undefined;
  const supervise = (current: ChildProcess) =>
    void exitOf(current).then(() => (relaunching = relaunch(current)));
  const relaunch = async (current: ChildProcess) => {
    if (stopping) return;
    log(`[s3] the S3 server exited (${current.signalCode ?? current.exitCode}); restarting it`);
    for (let attempt = 0; !stopping; attempt++) {
      try {
        child = await launch(options);
        if (stopping) child.kill('SIGTERM');
        else supervise(child);
        return;
      } catch (error) {
        log(`[s3] restart failed (${(error as Error).message}); retrying`);
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** attempt)));
      }
    }
  };
  supervise(child);
  return {
    endpoint: `http://${options.host}:${options.port}`,
    get pid() {
      return child.pid;
    },
    async stop() {
      stopping = true;
      await relaunching; // a restart under way finishes (and, seeing `stopping`, kills what it started) first
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exitOf(child);
      clearTimeout(timer);
    },
  };
}
