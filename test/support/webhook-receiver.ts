/**
 * A real HTTP receiver for webhook tests, on 127.0.0.1 (the only network tests may use). Each path is its own
 * endpoint with a script of answers (`500`, `410`, `hang` — never answer —, or any status); past the script it
 * answers 200. Every request is recorded with its headers and raw body, as a receiver would verify them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** What this request was answered (or 'hang'). */
  answer: number | 'hang';
}

export interface Receiver {
  url(path: string): string;
  /** Answers for the next requests to `path`, in order. */
  script(path: string, answers: (number | 'hang')[]): void;
  received(path: string): Received[];
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const log: Received[] = [];
  const scripts = new Map<string, (number | 'hang')[]>();
  const hung = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      const answer = scripts.get(path)?.shift() ?? 200;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      log.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), answer });
      if (answer === 'hang') {
        hung.add(res);
        return;
      }
      // Long: only an excerpt may be kept. A status past 600 answers its status less 100 with 100 KB in one write.
      const huge = answer >= 600;
      res.writeHead(huge ? answer - 100 : answer, { 'Content-Type': 'text/plain' });
      res.end(answer === 200 ? 'thanks' : `answer ${answer} `.repeat(huge ? 10_000 : 100));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const received = (path: string) => log.filter((r) => r.path === path);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    script: (path, answers) => scripts.set(path, [...answers]),
    received,
    async waitFor(path, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received(path).length < count) {
        if (Date.now() > deadline) throw new Error(`${path}: ${received(path).length} of ${count} deliveries after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received(path);
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
