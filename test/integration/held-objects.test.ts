/**
 * Raw mail and lifted attachments kept where the inbound spool put them (issue 22 items 1 and 5), end to end on the
 * embedded store: mail sent over SMTP to two inboxes of ours, with a 50 KB attachment (kept as the base64 in the
 * spool, decoded when read) and a 300 KB one (a file: decoding it at every read would cost as much). Their bytes are
 * nowhere in the database, every download is byte-exact (whole and as a Range), and once both inboxes are deleted
 * no spool segment and no file is left.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { inboundSpoolDir } from '../../lambdas/layout/inbound-spool-files';
import { BLOB_FILES_DIR } from '../../lambdas/store/sqlite-blob-files';
import { DATABASE_FILE } from '../../lambdas/store/sqlite-store';
import { http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';

let stack: StackHandle;
beforeAll(async () => {
  stack = await startStack({ store: 'embedded' });
}, 120_000);
afterAll(() => stack?.stop());

const small = randomBytes(50 * 1024);
const large = randomBytes(300 * 1024);
const inDatabase = (bytes: Buffer) =>
  [DATABASE_FILE, `${DATABASE_FILE}-wal`].some((f) => fs.existsSync(path.join(stack.dataDir, f)) && fs.readFileSync(path.join(stack.dataDir, f)).includes(bytes.subarray(1000, 1064)));

it('keeps raw mail and lifted attachments out of the database, serves them byte for byte, and frees them with the inboxes', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const inboxes = [(await api('POST', '/v1/inboxes', {})).body, (await api('POST', '/v1/inboxes', {})).body] as { id: string; email: string }[];
  const marker = `held-${randomBytes(8).toString('hex')}`;
  await sendMail(stack.smtpPort, {
    to: inboxes.map((i) => i.email),
    subject: marker,
    text: `${marker} `.repeat(200),
    attachments: [
      { filename: 'small.bin', content: small, contentType: 'application/octet-stream' },
      { filename: 'large.bin', content: large, contentType: 'application/octet-stream' },
    ],
  });
  const headers = { 'x-api-key': stack.keys.enterprise };
  for (const inbox of inboxes) {
    const listed = await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages?.[0], 20_000, 'the message');
    const message = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${listed.id}`)).body as { attachments: { download_url: string; size: number }[] };
    for (const [a, bytes] of [[message.attachments[0], small], [message.attachments[1], large]] as const) {
      expect(a.size).toBe(bytes.length);
      const url = a.download_url;
      const whole = await fetch(url);
      expect(whole.status).toBe(200);
      expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
      const part = await fetch(url, { headers: { range: 'bytes=1000-40999' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 1000-40999/${bytes.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 41000))).toBe(true);
    }
    const raw = await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}/messages/${listed.id}/raw`, { headers });
    expect((await raw.text()).includes(marker)).toBe(true);
  }
  // The raw mail and the small attachment are in the spool only; the large attachment is one file per inbox's copy.
  await stack.stop();
  expect(inDatabase(small)).toBe(false);
  expect(inDatabase(Buffer.from(small.toString('base64').slice(0, 2000)))).toBe(false);
  expect(fs.readdirSync(path.join(stack.dataDir, BLOB_FILES_DIR))).toHaveLength(2);
  expect(fs.readdirSync(inboundSpoolDir(stack.dataDir)).length).toBeGreaterThanOrEqual(1);
  await stack.restart();
  for (const inbox of inboxes) expect((await api('DELETE', `/v1/inboxes/${inbox.id}`)).status).toBe(200);
  await eventually(async () => fs.readdirSync(inboundSpoolDir(stack.dataDir)).length === 0, 20_000, 'spool segments removed with the inboxes');
  expect(fs.readdirSync(path.join(stack.dataDir, BLOB_FILES_DIR))).toEqual([]);
}, 120_000);
