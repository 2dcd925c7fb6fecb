/**
 * How a stack run in the foreground (`npm start`, `npm run start:aws`) ends: Ctrl-C, SIGTERM, or its parent gone.
 * Both entry points share it, so that the two forms stop the same way.
 */
export function stopOnSignals(stack: { stop(): Promise<void> }, label: string): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await stack.stop();
    process.exit(0);
  };
  // A server keeps serving: a stray rejection is logged, not fatal (accepted mail is safe in the inbound queue).
  process.on('unhandledRejection', (reason) => console.error(`[${label}] unhandled rejection:`, reason));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // Run under npm and a shell, a SIGTERM to npm (a CI job's `kill $!`) ends both without passing it on. Orphaned, we
  // stop too, rather than hold the ports for a stack nobody controls.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void stop('parent process gone'), 1_000).unref();
}
