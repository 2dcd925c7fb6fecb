/**
 * `npm run bench:storage`: what one storage call costs, one call at a time, on both adapter sets: the embedded store
 * (SQLite in this process, each write committed with an fsync; one call at a time, so no group commit helps), and
 * the stand-ins (latency, and the CPU it takes in this process (the AWS SDK), in DynamoDB Local (Java) and in the S3
 * server). These are the parts a received mail is made of (docs/PERFORMANCE.md), so they bound what ingest can reach.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { appConfig } from '../lambdas/config/app-config';
import type { MessageRecord } from '../lambdas/core/model';
import type { Stores } from '../lambdas/core/ports';
import { standInSettings } from '../lambdas/layout/stand-ins';
import { parseMail } from '../lambdas/ingest/parse-mail';
import { appContext } from '../lambdas/app/context';
import { LOCAL_BUCKET, LOCAL_TABLE } from '../local/config';
import { ensureBucket, ensureTable } from '../local/bootstrap';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { freePort } from '../local/ports';
import { startS3Local } from '../local/s3-local';
import { cpuMs, percentile } from './load';
import { epochSeconds } from '../lambdas/core/inbox';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);

/** The java process under DynamoDB Local's shell guard. */
function childPid(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return children.length ? Number(children[0]) : undefined;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-bench-storage-'));
  const [dynamoPort, s3Port] = await Promise.all([freePort(), freePort()]);
  const dynamo = await startDynamoDbLocal({ host: '127.0.0.1', port: dynamoPort, dataDir: path.join(dir, 'dynamodb') });
  const s3 = await startS3Local({ host: '127.0.0.1', port: s3Port, directory: path.join(dir, 's3'), bucket: LOCAL_BUCKET });
  try {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
    const embedded = appContext(appConfig({ store: { kind: 'embedded', dataDir: path.join(dir, 'embedded'), publicUrl: 'http://127.0.0.1' } }));
    await measure('embedded store (SQLite, in process)', embedded.stores, {});
    await embedded.stores.close();
    await ensureTable(new DynamoDBClient(standInSettings(dynamo.endpoint)), LOCAL_TABLE);
    await ensureBucket(new S3Client({ forcePathStyle: true, ...standInSettings(s3.endpoint) }), LOCAL_BUCKET);
    const aws = appContext(appConfig({ store: { kind: 'dynamodb', table: LOCAL_TABLE, bucket: LOCAL_BUCKET, endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint } } }));
    await measure('DynamoDB Local + S3 server', aws.stores, { java: childPid(dynamo.process.pid), s3: s3.pid });
  } finally {
    await Promise.all([s3.stop(), dynamo.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(form: string, stores: Stores, pids: { java?: number; s3?: number }) {
  {
    const javaPid = pids.java;
    const now = Math.floor(Date.now() / 1000);
    const inbox = {
      id: 'inb_bench', email: 'bench@tempmail.local', account_id: 'acc_bench', plan: 'enterprise' as const,
      created_at: new Date().toISOString(), expires_at: new Date((now + 3600) * 1000).toISOString(), expires_at_epoch: now + 3600, ttl: 3600, message_count: 0,
    };
    await stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
    const body = Buffer.alloc(2048, 'a');
    const raw = Buffer.from(`From: a@example.com\r\nTo: ${inbox.email}\r\nSubject: hi\r\n\r\n${'Lorem ipsum dolor sit amet. '.repeat(70)}`);
    const message = (i: number) =>
      ({
        id: `msg_${String(i).padStart(26, '0')}`, inbox_id: inbox.id, from: 'a@example.com', from_name: null, to: inbox.email, subject: 'hi',
        received_at: new Date().toISOString(), size: raw.length, text: 'x', html: '', attachments: [], codes: [], links: [],
        auth: { spf: 'DISABLED', dkim: 'DISABLED', dmarc: 'DISABLED', spam: 'DISABLED', virus: 'DISABLED' }, raw_key: 'k',
      }) as MessageRecord;

    const calls: [string, (i: number) => Promise<unknown>][] = [
      ['read address claim (GetItem)', () => stores.inboxes.inboxForAddress(inbox.email)],
      ['read day usage (GetItem)', () => stores.inboxes.usage(inbox.account_id, '2026-01-01')],
      ['put message (TransactWrite)', (i) => stores.inboxes.putMessage(message(i), inbox, { nowEpoch: epochSeconds(Date.now()), day: '2026-01-01', dailyLimit: 1e9 })],
      ['blob PUT 2 KB + metadata', (i) => stores.blobs.put(`inbound/m${i}`, body, 'message/rfc822', { 'tempmail-envelope': 'x'.repeat(200) })],
      ['blob GET 2 KB', (i) => stores.blobs.get(`inbound/m${i}`)],
      ['blob COPY', (i) => stores.blobs.copy(`inbound/m${i}`, `inboxes/${inbox.id}/m${i}/raw.eml`)],
      ['blob DELETE', (i) => stores.blobs.delete(`inbound/m${i}`)],
      ['parse 2 KB mail (mailparser)', () => parseMail(raw, { envelopeFrom: 'a@example.com' })],
    ];
    console.log(`\nbench:storage, ${form}: ${CALLS} calls each, one at a time, on this machine (CPU per call: Node | DynamoDB Local | S3 server)`);
    for (const [label, call] of calls) {
      const before = { node: process.cpuUsage(), java: cpuMs(javaPid), s3: cpuMs(pids.s3) };
      const latencies: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        await call(i);
        latencies.push(performance.now() - t);
      }
      const node = process.cpuUsage(before.node);
      latencies.sort((a, b) => a - b);
      const per = (ms: number) => (ms / CALLS).toFixed(2).padStart(5);
      console.log(
        `  ${label.padEnd(30)} p50 ${percentile(latencies, 50).toFixed(2).padStart(5)} ms  p99 ${percentile(latencies, 99).toFixed(2).padStart(6)} ms | CPU ms: ` +
          `node ${per((node.user + node.system) / 1000)}  java ${per(cpuMs(javaPid) - before.java)}  s3 ${per(cpuMs(pids.s3) - before.s3)}`,
      );
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
