import type { StackHandle } from './stack';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __TEMPMAIL_STACK__?: StackHandle }).__TEMPMAIL_STACK__?.stop();
}
