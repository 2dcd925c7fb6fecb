/**
 * A full disk: the local stack on a 24 MB tmpfs as its data folder. Mail below the free-space headroom gets 452 4.3.1
 * before its 250 (never a 250 that cannot be stored), API writes other than deletes 507, and deletes work on a disk
 * filled to the last byte, also after a restart, and make room for mail again.
 *
 * Needs mount(2) for the tmpfs (root, as CI runs): skipped, saying why, where the test cannot mount one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expectError, http } from '../support/http';
import { eventually, sendSized } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';

const DISK_MB = 24;
const MIN_FREE_MB = 6;
const MAIL_BYTES = 960 * 1024;

const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-full-disk-'));
let skipReason: string | null = null;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_MB}m,mode=0700`, 'tmpfs', mountPoint], { stdio: 'pipe' });
} catch (error) {
  skipReason = `cannot mount a ${DISK_MB} MB tmpfs here (needs root or CAP_SYS_ADMIN): ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
}
const maybe = skipReason ? it.skip : it;
if (skipReason) console.warn(`full-disk tests skipped: ${skipReason}`);

let stack: StackHandle;
beforeAll(async () => {
  if (skipReason) return;
  stack = await startStack({
    store: 'embedded',
    dataDir: path.join(mountPoint, 'data'),
    env: {
      TEMPMAIL_MIN_FREE_MB: String(MIN_FREE_MB),
      TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ enterprise: { requests_per_minute: 1_000_000 } }),
    },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  if (!skipReason) execFileSync('umount', [mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true });
});

/** One mail of `bytes` (support/mail.ts sendSized): the reply to a refused RCPT, else to the DATA. */
const send = (to: string, bytes: number) => sendSized(stack.smtpPort, to, bytes);

const messageCount = async (api: ReturnType<typeof http>, inboxId: string) => (await api('GET', `/v1/inboxes/${inboxId}`)).body.message_count as number;

/** Fills the filesystem to its last byte, as another program could: a file written until ENOSPC. */
function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          fs.writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  expect(fs.statfsSync(file).bavail).toBe(0);
}

let filled: { id: string; email: string };
let spare: { id: string; email: string };

maybe('refuses mail below the free-space headroom with 452 4.3.1 before any 250, and stores every mail that got one', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  filled = (await api('POST', '/v1/inboxes', {})).body;
  spare = (await api('POST', '/v1/inboxes', {})).body;
  const replies: string[] = [];
  for (let i = 0; i < 40; i++) replies.push(await send(filled.email, MAIL_BYTES));
  const accepted = replies.filter((r) => r.startsWith('250')).length;
  console.log(`${DISK_MB} MB disk, ${MIN_FREE_MB} MB headroom: 40 mails of 0.96 MB -> ${accepted} × 250, ${replies.length - accepted} refused`);
  expect(accepted).toBeGreaterThan(0);
  // Every refusal is the headroom's 452 4.3.1 (before: 451 once SQLite found the disk full, after some 250s).
  expect(replies.filter((r) => !r.startsWith('250'))).toEqual(Array(40 - accepted).fill(expect.stringMatching(/^452 4\.3\.1 /)));
  expect(accepted).toBeLessThan(40);
  // Every mail that got a 250 is stored and visible.
  await eventually(async () => (await messageCount(api, filled.id)) === accepted, 60_000, `${accepted} messages visible`);

}, 300_000);

maybe('deletes on a disk filled to the last byte, also after a restart, and mail is accepted again after', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const filler = path.join(mountPoint, 'filler');
  fillDisk(filler);
  const [first] = (await api('GET', `/v1/inboxes/${filled.id}/messages?limit=1`)).body.messages;
  expect((await api('DELETE', `/v1/inboxes/${filled.id}/messages/${first.id}`)).status).toBe(200);
  // While it is full: API writes other than deletes 507 in the error format, mail of any size 452 4.3.1; reads work.
  expect(expectError(await api('POST', '/v1/inboxes', {}), 507)).toMatch(/insufficient storage/);
  expect(await send(spare.email, 1_000)).toMatch(/^452 4\.3\.1 /);
  expect((await api('GET', `/v1/inboxes/${filled.id}/messages`)).status).toBe(200);
  expect((await api('DELETE', `/v1/inboxes/${spare.id}`)).status).toBe(200);

  // A restart on the full disk: it starts, and a DELETE works.
  fillDisk(`${filler}-2`);
  await stack.stop();
  await stack.restart();
  expect((await api('DELETE', `/v1/inboxes/${filled.id}`)).status).toBe(200);
  expect((await api('GET', `/v1/inboxes/${filled.id}`)).status).toBe(404);
  expect((await api('GET', '/v1/inboxes')).body.inboxes).toEqual([]);

  // The other program's files gone: the space the deletes freed takes mail again.
  fs.rmSync(filler);
  fs.rmSync(`${filler}-2`);
  // (The stack looks at the filesystem again within a second.)
  const fresh = await eventually(async () => {
    const created = await api('POST', '/v1/inboxes', {});
    return created.status === 201 && (created.body as { id: string; email: string });
  }, 10_000, 'a new inbox');
  expect(await send(fresh.email, MAIL_BYTES)).toMatch(/^250 /);
  await eventually(async () => (await messageCount(api, fresh.id)) === 1, 30_000, 'the new mail visible');
}, 300_000);
