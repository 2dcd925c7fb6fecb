/**
 * Keeps a stand-in's child process running: should it exit on its own it is launched again (with back-off), and
 * `stop` ends it for good. DynamoDB Local and the S3 server share this; the stack answers 503 / 451 meanwhile.
 */
import type { ChildProcess } from 'node:child_process';

export const exitOf = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

export interface Supervised {
  /** The current process. */
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export async function supervise(
  tag: string,
  label: string,
  launch: () => Promise<ChildProcess>,
  log: (line: string) => void,
  onExit: (child: ChildProcess) => void = () => undefined,
): Promise<Supervised> {
  let child = await launch();
  let stopping = false;
  let relaunching: Promise<void> | undefined;
  const relaunch = async (current: ChildProcess) => {
    onExit(current);
    if (stopping) return;
    log(`[${tag}] ${label} exited (${current.signalCode ?? current.exitCode}); restarting it`);
    for (let attempt = 0; !stopping; attempt++) {
      try {
        child = await launch();
        if (stopping) child.kill('SIGTERM');
        else watch(child);
        return;
      } catch (error) {
        log(`[${tag}] restart failed (${(error as Error).message.split('\n')[0]}); retrying`);
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** attempt)));
      }
    }
  };
  const watch = (current: ChildProcess) => void exitOf(current).then(() => (relaunching = relaunch(current)));
  watch(child);
  return {
    get child() {
      return child;
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
