/**
 * A real HTTP receiver for webhook tests, on 127.0.0.1 (the only network tests may use). Each path is its own
 * endpoint with a script of answers (`500`, `410`, `hang` — never answer —, or any status); past the script it
 * answers 200. Every request is recorded with its headers and raw body, as a receiver would verify them.
 * With `publicHost` it is an https receiver on the internet as the template form's functions see it: its URLs name
 * that host, and start:aws's internet stand-in (TEMPMAIL_TEMPLATE_INTERNET, local/aws/internet.js) resolves it to a
 * public address and connects it here; its certificate is issued for the host by a CA made for the run
 * (`internetStandIn` gives the settings).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import type { AddressInfo } from 'node:net';
import { startStack, type StackHandle } from './stack';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** What this request was answered (or 'hang'). */
  answer: number | 'hang';
}

export interface Receiver {
  /** Its loopback port. */
  port: number;
  url(path: string): string;
  /** Answers for the next requests to `path`, in order. */
  script(path: string, answers: (number | 'hang')[]): void;
  received(path: string): Received[];
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export interface PublicReceiverOptions {
  /** The host name its URLs carry (an https receiver). */
  publicHost: string;
  /** Where the CA's certificate is written (a PEM file for TEMPMAIL_TEMPLATE_INTERNET_CA). */
  caFile: string;
}

/** A CA made for the run and a certificate it issues for `host` (selfsigned, as local/smtp-tls.ts; nothing kept). */
async function certificateFor(host: string, caFile: string): Promise<{ key: string; cert: string }> {
  const ca = await generate([{ name: 'commonName', value: 'TempMail test CA' }], {
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  fs.mkdirSync(path.dirname(caFile), { recursive: true });
  fs.writeFileSync(caFile, ca.cert);
  const leaf = await generate([{ name: 'commonName', value: host }], {
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: host }] },
    ],
  });
  return { key: leaf.private, cert: leaf.cert };
}

/** start:aws's settings for a receiver on the internet's stand-in. */
export const internetStandIn = (receiver: Receiver, options: PublicReceiverOptions): Record<string, string> => ({
  TEMPMAIL_TEMPLATE_INTERNET: `${options.publicHost}=127.0.0.1:${receiver.port}`,
  TEMPMAIL_TEMPLATE_INTERNET_CA: options.caFile,
});

export async function startReceiver(options?: PublicReceiverOptions): Promise<Receiver> {
  const log: Received[] = [];
  const scripts = new Map<string, (number | 'hang')[]>();
  const hung = new Set<http.ServerResponse>();
  const handler: http.RequestListener = (req, res) => {
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
  };
  const server = options ? https.createServer(await certificateFor(options.publicHost, options.caFile), handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const received = (path: string) => log.filter((r) => r.path === path);
  return {
    port,
    url: (path) => (options ? `https://${options.publicHost}${path}` : `http://127.0.0.1:${port}${path}`),
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

/** URLs the AWS rules refuse at creation (TEMPMAIL_WEBHOOK_ALLOW_PRIVATE=0, and the template form always), named. */
export const FORBIDDEN_WEBHOOK_URLS: [what: string, url: string][] = [
  ['private 10/8', 'https://10.0.0.5/hook'],
  ['private 172.16/12', 'https://172.16.3.4/hook'],
  ['private 192.168/16', 'https://192.168.1.1/hook'],
  ['loopback', 'https://127.0.0.1:8443/hook'],
  ['loopback, other', 'https://127.1.2.3/hook'],
  ['unspecified', 'https://0.0.0.0/hook'],
  ['link-local', 'https://169.254.10.1/hook'],
  ['instance metadata', 'https://169.254.169.254/latest/meta-data/'],
  ['carrier-grade NAT', 'https://100.64.0.1/hook'],
  ['multicast', 'https://224.0.0.1/hook'],
  ['reserved', 'https://240.0.0.1/hook'],
  ['IPv6 loopback', 'https://[::1]/hook'],
  ['IPv6 unique-local', 'https://[fd00::1]/hook'],
  ['IPv6 metadata (unique-local)', 'https://[fd00:ec2::254]/hook'],
  ['IPv6 link-local', 'https://[fe80::1]/hook'],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
  ['http', 'http://example.com/hook'],
  ['a name resolving to loopback', 'https://localhost/hook'],
  ['a name resolving to loopback, with a port', 'https://localhost:8443/hook'],
];

/**
 * webhooks.test.ts's stack and receiver. The template form (`publicHost`): an https receiver on the internet's
 * stand-in, and TTL every 2 s (inbox.expired comes from TTL's REMOVE through the stream there). A local form: a
 * receiver on loopback and the local settings (`schedule` of retries in seconds, an attempt timeout of 1.5 s instead
 * of 10 s for the timeout test, the sweep every 300 ms, DEBUG logs).
 */
export async function startWebhookStack(options: { publicHost: string } | { schedule: string }): Promise<{ stack: StackHandle; receiver: Receiver }> {
  if ('publicHost' in options) {
    const standIn = { publicHost: options.publicHost, caFile: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-ca-')), 'ca.pem') };
    const receiver = await startReceiver(standIn);
    return { receiver, stack: await startStack({ form: 'aws-template', env: { ...internetStandIn(receiver, standIn), TEMPMAIL_TTL_INTERVAL_MS: '2000' } }) };
  }
  const receiver = await startReceiver();
  const env = { TEMPMAIL_WEBHOOK_RETRY_SCHEDULE: options.schedule, TEMPMAIL_WEBHOOK_TIMEOUT_MS: '1500', TEMPMAIL_SWEEP_INTERVAL_MS: '300', LOG_LEVEL: 'DEBUG' };
  return { receiver, stack: await startStack({ env }) };
}
