/**
 * The use cases on the embedded store, in this process: the fast tier (`npm run test:unit`, no stack, no Java).
 * Receiving runs through the same use cases the SMTP stand-in calls: admission, the inbound queue, ingest.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { utcDay } from '../../lambdas/core/inbox';
import type { Caller } from '../../lambdas/core/model';
import { blobKeys } from '../../lambdas/core/ports';
import { appContext } from '../../lambdas/app/context';
import type { IngestContext } from '../../lambdas/usecases/context';
import { acceptInbound, finishInbound, ingestInbound, newMailId, pendingInbound, type Envelope } from '../../lambdas/usecases/inbound';
import { createInbox, deleteInbox, ownedInbox, sweepExpired } from '../../lambdas/usecases/inboxes';
import { admitMail, admitRecipient, QuotaReservations } from '../../lambdas/usecases/ingest';
import { deleteMessage, getMessage, listMessages } from '../../lambdas/usecases/messages';

let ctx: IngestContext;
let dataDir: string;
let clock = Date.now();
const owner: Caller = { account_id: 'acct_owner', plan: 'enterprise' };
const stranger: Caller = { account_id: 'acct_stranger', plan: 'enterprise' };

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-usecases-'));
  const config = appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' }, planOverrides: JSON.stringify({ dev: { emails_per_day: 3 } }) });
  ctx = appContext(config, () => clock);
});
afterAll(async () => {
  await ctx.stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const envelope = (recipients: string[]): Envelope => ({ mailId: newMailId(clock), recipients, envelopeFrom: 'sender@example.com', receivedAt: new Date(clock).toISOString() });

async function receive(recipients: string[], raw: string) {
  const mail = envelope(recipients);
  await acceptInbound(ctx, mail, Buffer.from(raw));
  const outcomes = await ingestInbound(ctx, mail);
  await finishInbound(ctx, mail);
  return outcomes;
}

it('creates, reads and deletes an inbox, hiding it from other accounts', async () => {
  const inbox = await createInbox(ctx, owner, { username: 'Alice.Unit' });
  expect(inbox.email).toBe('alice.unit@tempmail.local');
  expect((await ownedInbox(ctx, owner, inbox.id)).id).toBe(inbox.id);
  await expect(ownedInbox(ctx, stranger, inbox.id)).rejects.toMatchObject({ status: 404, message: `inbox not found: ${inbox.id}` });
  await expect(createInbox(ctx, stranger, { username: 'alice.unit' })).rejects.toMatchObject({ status: 409 });
  await deleteInbox(ctx, owner, inbox.id);
  await expect(ownedInbox(ctx, owner, inbox.id)).rejects.toMatchObject({ status: 404 });
  expect((await createInbox(ctx, stranger, { username: 'alice.unit' })).email).toBe('alice.unit@tempmail.local');
});

it("never delivers mail received for a deleted inbox to the account that claimed its address since", async () => {
  const first = await createInbox(ctx, owner, { username: 'claimed.again' });
  const mail = envelope([first.email]);
  await acceptInbound(ctx, mail, Buffer.from('Subject: code for the owner\r\n\r\nYour code is 604211.\r\n')); // its 250
  await deleteInbox(ctx, owner, first.id);
  clock += 60_000; // ingest runs late: a retry, the dead-letter queue, a restart
  const second = await createInbox(ctx, stranger, { username: 'claimed.again' });
  expect(await ingestInbound(ctx, mail)).toEqual([{ recipient: first.email, outcome: 'unknown-inbox' }]);
  await finishInbound(ctx, mail);
  expect((await listMessages(ctx, stranger, second.id, {})).total).toBe(0);
  // Mail received after the new claim is the new inbox's.
  expect(await receive([second.email], 'Subject: for the newcomer\r\n\r\nhello\r\n')).toEqual([expect.objectContaining({ outcome: 'stored' })]);
  await deleteInbox(ctx, stranger, second.id);
});

it("reads nothing of another account's inbox before checking that the caller owns it (no search, no timing)", async () => {
  const inbox = await createInbox(ctx, owner, {});
  await receive([inbox.email], 'Subject: a secret\r\n\r\nThe code is 604211.\r\n');
  const reads = [jest.spyOn(ctx.stores.inboxes, 'listMessages'), jest.spyOn(ctx.stores.inboxes, 'messagesSince'), jest.spyOn(ctx.stores.inboxes, 'getMessage')];
  try {
    await expect(listMessages(ctx, stranger, inbox.id, { q: 'a'.repeat(199) + 'b' })).rejects.toMatchObject({ status: 404 });
    await expect(listMessages(ctx, stranger, inbox.id, { subject: 'secret' })).rejects.toMatchObject({ status: 404 });
    for (const read of reads) expect(read).not.toHaveBeenCalled();
    // The owner's search runs and finds it.
    expect((await listMessages(ctx, owner, inbox.id, { subject: 'secret' })).messages).toHaveLength(1);
    expect(reads[0]).toHaveBeenCalledTimes(1);
  } finally {
    for (const read of reads) read.mockRestore();
  }
  await deleteInbox(ctx, owner, inbox.id);
});

it("refuses a new inbox past the plan's max_inboxes with 409, and takes one again once another is deleted", async () => {
  const capped = appContext(
    appConfig({ store: { kind: 'embedded', dataDir: path.join(dataDir, 'capped'), publicUrl: 'http://127.0.0.1:9' }, planOverrides: JSON.stringify({ dev: { max_inboxes: 2 } }) }),
    () => clock,
  );
  try {
    const dev: Caller = { account_id: 'acct_dev_inboxes', plan: 'dev' };
    const first = await createInbox(capped, dev, {});
    await createInbox(capped, dev, {});
    await expect(createInbox(capped, dev, { username: 'one.too.many' })).rejects.toMatchObject({
      status: 409,
      message: 'the dev plan holds at most 2 live inboxes per account; delete one or let one expire first',
    });
    expect(await capped.stores.inboxes.inboxForAddress('one.too.many@tempmail.local')).toBeNull(); // nothing claimed
    expect((await createInbox(capped, { account_id: 'acct_other', plan: 'dev' }, {})).id).toBeDefined(); // per account
    await deleteInbox(capped, dev, first.id);
    expect((await createInbox(capped, dev, { username: 'one.too.many' })).email).toBe('one.too.many@tempmail.local');
  } finally {
    await capped.stores.close();
  }
});

it("drops mail past the plan's emails_per_inbox_per_day at ingest (the AWS path, where SES answered 250 already)", async () => {
  const capped = appContext(
    appConfig({ store: { kind: 'embedded', dataDir: path.join(dataDir, 'per-inbox'), publicUrl: 'http://127.0.0.1:9' }, planOverrides: JSON.stringify({ dev: { emails_per_inbox_per_day: 2 } }) }),
    () => clock,
  );
  try {
    const dev: Caller = { account_id: 'acct_dev_per_inbox', plan: 'dev' };
    const target = await createInbox(capped, dev, {});
    const other = await createInbox(capped, dev, {});
    const deliver = async (to: string) => {
      const mail = envelope([to]);
      await acceptInbound(capped, mail, Buffer.from('Subject: flood\r\n\r\nx\r\n'));
      const [outcome] = await ingestInbound(capped, mail);
      // The same mail ingested again (a retry) is still a duplicate, not a drop: its own message is not counted.
      if (outcome.outcome === 'stored') expect((await ingestInbound(capped, mail))[0].outcome).toBe('duplicate');
      await finishInbound(capped, mail);
      return outcome.outcome;
    };
    expect([await deliver(target.email), await deliver(target.email), await deliver(target.email)]).toEqual(['stored', 'stored', 'quota']);
    expect(await deliver(other.email)).toBe('stored');
    expect(await admitRecipient(capped, target.email)).toBe('quota');
    expect(await admitRecipient(capped, other.email)).toBe('ok');
  } finally {
    await capped.stores.close();
  }
});

it('bounds the text one search request reads (MAX_FILTER_SCAN_BYTES), going on from its cursor', async () => {
  const inbox = await createInbox(ctx, owner, {});
  const text = Array.from({ length: 100 }, () => 'a'.repeat(898)).join('\r\n'); // 90 KB, kept inline and searched
  await receive([inbox.email], `Subject: oldest\r\n\r\nthe needle-0 is here\r\n${text}\r\n`);
  for (let i = 1; i < 60; i++) {
    clock += 1_000; // message ids sort by time received: newest first
    await receive([inbox.email], `Subject: big ${i}\r\n\r\n${text}\r\n`);
  }
  // 5.4 MB of text in all: the first request stops after 4 MB with no match and a cursor; following it finds the mail.
  const first = await listMessages(ctx, owner, inbox.id, { q: 'needle-0' });
  expect(first.messages).toEqual([]);
  expect(first.next_cursor).toBeDefined();
  expect(first).toMatchObject({ total: 60, matched: 0, matched_exact: false }); // the count stopped with the scan
  const second = await listMessages(ctx, owner, inbox.id, { q: 'needle-0', cursor: first.next_cursor });
  expect(second.messages.map((m) => m.subject)).toEqual(['oldest']);
  expect(second.next_cursor).toBeUndefined();
  expect(second).toMatchObject({ matched: 1, matched_exact: true });
  // Every message matches 'big' or 'needle' bar none: the first request counts those within its bound only.
  const all = await listMessages(ctx, owner, inbox.id, { q: 'a', limit: 5 });
  expect(all.messages).toHaveLength(5);
  expect(all.matched_exact).toBe(false);
  expect(all.matched).toBeGreaterThan(5);
  expect(all.matched).toBeLessThan(60);
  // Matches within the bound come at once; 'big 5' itself is past it, on the next page.
  const page = await listMessages(ctx, owner, inbox.id, { q: 'big 5' });
  expect(page.messages.map((m) => m.subject)).toEqual(['big 59', 'big 58', 'big 57', 'big 56', 'big 55', 'big 54', 'big 53', 'big 52', 'big 51', 'big 50']);
  expect((await listMessages(ctx, owner, inbox.id, { q: 'big 5', cursor: page.next_cursor })).messages.map((m) => m.subject)).toEqual(['big 5']);
  await deleteInbox(ctx, owner, inbox.id);
}, 60_000);

it('receives a mail through the inbound queue: stored once per inbox, codes found, the queue emptied', async () => {
  const inbox = await createInbox(ctx, owner, {});
  const other = await createInbox(ctx, owner, { domain: 'inbox.test' });
  const [user, domain] = inbox.email.split('@');
  const outcomes = await receive(
    [`${user}+a@${domain}`, `${user}+b@${domain}`, other.email, 'nobody@tempmail.local', 'x@elsewhere.example'],
    'From: "Shop" <shop@example.com>\r\nSubject: Your code\r\n\r\nYour verification code is 604211.\r\n',
  );
  expect(outcomes.map((o) => o.outcome).sort()).toEqual(['not-our-domain', 'stored', 'stored', 'unknown-inbox']);
  const list = await listMessages(ctx, owner, inbox.id, {});
  expect(list.total).toBe(1);
  const message = await getMessage(ctx, owner, inbox.id, list.messages[0].id);
  expect(message).toMatchObject({ from: 'shop@example.com', from_name: 'Shop', subject: 'Your code', to: inbox.email, codes: ['604211'] });
  expect(await ctx.stores.blobs.list(blobKeys.INBOUND_PREFIX)).toEqual([]);
  expect(await pendingInbound(ctx, () => false)).toEqual([]);
});

it('resumes accepted mail that was not ingested, and ingesting it twice stores it once', async () => {
  const inbox = await createInbox(ctx, owner, {});
  const mail = envelope([inbox.email]);
  await acceptInbound(ctx, mail, Buffer.from('Subject: pending\r\n\r\nx\r\n'));
  const pending = await pendingInbound(ctx, () => false);
  expect(pending).toEqual([{ envelope: mail }]);
  expect((await ingestInbound(ctx, mail))[0].outcome).toBe('stored');
  // Delivered again after the inbound object is gone (a repeated SES event): a duplicate, not an error.
  expect((await ingestInbound(ctx, mail))[0].outcome).toBe('duplicate');
  expect((await listMessages(ctx, owner, inbox.id, {})).total).toBe(1);
});

it('reserves the daily limit before the 250: exactly the limit is admitted, however many race', async () => {
  const dev: Caller = { account_id: 'acct_dev_quota', plan: 'dev' };
  const inbox = await createInbox(ctx, dev, {});
  const reservations = new QuotaReservations();
  const admitted = await Promise.all(Array.from({ length: 8 }, () => admitMail(ctx, [inbox.email], reservations)));
  const reserved = admitted.filter((a) => typeof a === 'object');
  expect(reserved).toHaveLength(3);
  expect(admitted.filter((a) => a === 'quota')).toHaveLength(5);
  expect(await admitRecipient(ctx, inbox.email, reservations)).toBe('quota');
  // Released reservations (a mail that failed before its 250) give the room back.
  reserved[0].release();
  expect(await admitRecipient(ctx, inbox.email, reservations)).toBe('ok');
  expect(await admitRecipient(ctx, 'someone@elsewhere.example', reservations)).toBe('not-our-domain');
  expect(await admitRecipient(ctx, 'nobody-here@tempmail.local', reservations)).toBe('unknown-inbox');
});

it('does not count a mail twice while it is being stored (in the store and still reserved): the last mail of the day fits', async () => {
  const dev: Caller = { account_id: 'acct_dev_storing', plan: 'dev' }; // 3 mails a day in this config
  const inbox = await createInbox(ctx, dev, {});
  const reservations = new QuotaReservations();
  const store = async (reservation: { release(): void }, gate?: Promise<void>) => {
    const mail = envelope([inbox.email]);
    await acceptInbound(ctx, mail, Buffer.from('Subject: counted once\r\n\r\nx\r\n'));
    await reservations.whileStoring(async () => {
      expect((await ingestInbound(ctx, mail))[0].outcome).toBe('stored');
      await gate; // stored, not yet released: the window in which the store's count and the reservation both hold it
      reservation.release();
    });
  };
  const first = await admitMail(ctx, [inbox.email], reservations);
  const second = await admitMail(ctx, [inbox.email], reservations);
  if (typeof first !== 'object' || typeof second !== 'object') throw new Error(`not admitted: ${String(first)}, ${String(second)}`);
  await store(first);
  let open!: () => void;
  const storing = store(second, new Promise<void>((resolve) => (open = resolve)));
  while ((await ctx.stores.inboxes.usage(dev.account_id, utcDay(clock))) < 2) await new Promise((r) => setTimeout(r, 5));
  // Two stored and the second still reserved: counted as 2 + 1, the third mail (2 + 1 + 1 > 3) would be refused.
  const rcpt = admitRecipient(ctx, inbox.email, reservations);
  const data = admitMail(ctx, [inbox.email], reservations);
  setTimeout(open, 20);
  expect(await rcpt).toBe('ok');
  const third = await data;
  expect(typeof third).toBe('object');
  await storing;
  // Now the limit is really reached: refused at once, with nothing in flight.
  expect(await admitRecipient(ctx, inbox.email, reservations)).toBe('quota');
});

it('admits no mail at the end of DATA when none of its inboxes is live any more (deleted after RCPT)', async () => {
  const inbox = await createInbox(ctx, owner, {});
  const reservations = new QuotaReservations();
  expect(await admitRecipient(ctx, inbox.email, reservations)).toBe('ok');
  await deleteInbox(ctx, owner, inbox.id);
  expect(await admitMail(ctx, [inbox.email], reservations)).toBe('no-inbox');
  const other = await createInbox(ctx, owner, {});
  const admitted = await admitMail(ctx, [inbox.email, other.email], reservations);
  expect(typeof admitted).toBe('object'); // one live inbox: the mail goes there
});

it('sweeps inboxes an hour after they expired, with their objects; "inbox expired" until then', async () => {
  const inbox = await createInbox(ctx, owner, { ttl: 60 });
  await receive([inbox.email], 'Subject: soon gone\r\n\r\nx\r\n');
  clock += 61_000;
  await expect(ownedInbox(ctx, owner, inbox.id)).rejects.toMatchObject({ status: 404, message: `inbox expired: ${inbox.id}` });
  expect(await admitRecipient(ctx, inbox.email)).toBe('expired-inbox');
  await sweepExpired(ctx);
  expect(await ctx.stores.inboxes.getInbox(inbox.id)).not.toBeNull();
  clock += 3_600_000;
  expect(await sweepExpired(ctx)).toBeGreaterThanOrEqual(1);
  expect(await ctx.stores.inboxes.getInbox(inbox.id)).toBeNull();
  expect(await ctx.stores.blobs.list(blobKeys.inbox(inbox.id))).toEqual([]);
  await expect(ownedInbox(ctx, owner, inbox.id)).rejects.toMatchObject({ status: 404, message: `inbox not found: ${inbox.id}` });
});

describe("a mail to several inboxes: each keeps copies of its own of the mail's attachments", () => {
  const mime = [
    'From: shop@example.com',
    'Subject: two files',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'see attached',
    '--b',
    'Content-Type: text/plain; name="one.txt"',
    'Content-Disposition: attachment; filename="one.txt"',
    '',
    'first file',
    '--b',
    'Content-Type: application/pdf; name="two.pdf"',
    'Content-Disposition: attachment; filename="two.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('%PDF-1.4 second file').toString('base64'),
    '--b--',
    '',
  ].join('\r\n');
  const isAttachment = (key: string) => /\/att_\d+$/.test(key);
  const attachmentsOf = async (inboxId: string) => {
    const [summary] = (await listMessages(ctx, owner, inboxId, {})).messages;
    const keys = [blobKeys.attachment(inboxId, summary.id, 'att_1'), blobKeys.attachment(inboxId, summary.id, 'att_2')];
    return { messageId: summary.id, bodies: await Promise.all(keys.map(async (key) => (await ctx.stores.blobs.get(key))?.toString('utf8') ?? null)) };
  };

  it('uploads them once and copies them for each further inbox (S3 copies server-side); deleting one inbox or message leaves the others', async () => {
    const inboxes = await Promise.all([0, 1, 2].map(() => createInbox(ctx, owner, {})));
    const puts = jest.spyOn(ctx.stores.blobs, 'put');
    const copies = jest.spyOn(ctx.stores.blobs, 'copy');
    try {
      expect((await receive(inboxes.map((i) => i.email), mime)).map((o) => o.outcome)).toEqual(['stored', 'stored', 'stored']);
      expect(puts.mock.calls.filter(([key]) => isAttachment(key))).toHaveLength(2);
      expect(copies.mock.calls.filter(([, to]) => isAttachment(to))).toHaveLength(4);
    } finally {
      puts.mockRestore();
      copies.mockRestore();
    }
    for (const inbox of inboxes) expect((await attachmentsOf(inbox.id)).bodies).toEqual(['first file', '%PDF-1.4 second file']);
    const first = await attachmentsOf(inboxes[0].id);
    await deleteMessage(ctx, owner, inboxes[0].id, first.messageId);
    await deleteInbox(ctx, owner, inboxes[1].id);
    expect(await ctx.stores.blobs.list(blobKeys.inbox(inboxes[0].id))).toEqual([]);
    expect(await ctx.stores.blobs.list(blobKeys.inbox(inboxes[1].id))).toEqual([]);
    expect((await attachmentsOf(inboxes[2].id)).bodies).toEqual(['first file', '%PDF-1.4 second file']);
  });

  it('uploads them again when the inbox they were stored for first could not take the mail (its copies are deleted)', async () => {
    const full: Caller = { account_id: 'acct_dev_full', plan: 'dev' };
    const fullInbox = await createInbox(ctx, full, {});
    for (let i = 0; i < 3; i++) await receive([fullInbox.email], `Subject: filler ${i}\r\n\r\nx\r\n`); // the dev plan's day here: 3
    const other = await createInbox(ctx, owner, {});
    expect((await receive([fullInbox.email, other.email], mime)).map((o) => o.outcome)).toEqual(['quota', 'stored']);
    expect((await attachmentsOf(other.id)).bodies).toEqual(['first file', '%PDF-1.4 second file']);
  });
});
