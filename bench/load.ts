/** A small closed-loop HTTP load generator: N concurrent clients for a duration; rps and latency percentiles. */
import http from 'node:http';
import { cpuSeconds } from '../test/support/poison';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function load(url: string, headers: Record<string, string>, concurrency: number, seconds: number): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = process.hrtime.bigint();
      const req = http.get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) errors++;
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
    });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, seconds: elapsed, rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), mean: latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1) };
}

export const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   (${r.requests} requests, ${r.errors} errors)`;

/** CPU milliseconds a process has used so far, all its threads (user + system); 0 without a pid. */
export const cpuMs = (pid: number | undefined): number => (pid ? cpuSeconds(pid) * 1000 : 0);

/**
 * GET → parsed JSON over one keep-alive connection pool with node:http: the benchmarks' probes, which must cost the
 * machine they measure little (fetch costs several times the CPU per request).
 */
export function jsonGetter(baseUrl: string, headers: Record<string, string>, maxSockets = 4) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const get = <T>(path: string) =>
    new Promise<T>((resolve, reject) => {
      http
        .get(`${baseUrl}${path}`, { agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T);
            } catch (error) {
              reject(error);
            }
          });
        })
        .on('error', reject);
    });
  return Object.assign(get, { close: () => agent.destroy() });
}
