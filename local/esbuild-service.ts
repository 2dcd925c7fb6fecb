/**
 * tsx (which loads the local stack's sources) and the viewer build run esbuild's synchronous API, which starts a
 * service: a worker thread and an `esbuild` child process (17 MB) kept for later compiles. Once the stack is up it
 * needs it no more (tsx keeps what it compiled in its disk cache; a module first loaded later on a cold cache, a
 * handler's first request, starts a new one). esbuild's `stop()` ends the thread but leaves the process running (and,
 * ended after the thread, a zombie nobody reaps), so this process's own `esbuild` children are ended first, by pid,
 * while the thread that started them is there to reap them, and the thread after.
 */
import fs from 'node:fs';

/** Pids of this process's children named `name` (Linux: /proc; elsewhere none are found). */
function childrenNamed(name: string): number[] {
  if (!fs.existsSync('/proc/self/stat')) return [];
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))!;
      return comm === name && Number(rest.split(' ')[1]) === process.pid ? [Number(entry)] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}

export async function stopEsbuildService(): Promise<void> {
  // The npm package runs bundled JavaScript without esbuild: there is no service to stop.
  let esbuild: typeof import('esbuild');
  try {
    esbuild = require('esbuild') as typeof import('esbuild');
  } catch {
    return;
  }
  const running = childrenNamed('esbuild');
  for (const pid of running) process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 50 && running.some((pid) => fs.existsSync(`/proc/${pid}`)); i++) await new Promise((r) => setTimeout(r, 20));
  await esbuild.stop();
}
