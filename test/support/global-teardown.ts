import type { StackHandle } from './stack';

export default async function globalTeardown(): Promise<void> {
  const stacks = (globalThis as { __TEMPMAIL_STACKS__?: StackHandle[] }).__TEMPMAIL_STACKS__ ?? [];
  await Promise.all(stacks.splice(0).map((stack) => stack.stop()));
}
