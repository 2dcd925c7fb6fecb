/**
 * The embedded form's inbound spool across restarts, on a real stack: a segment left by a stop before its mail was
 * stored (written here as the stack writes one, with a torn record at its tail, as a crash mid-write leaves it) is
 * replayed at the next start: each whole record becomes exactly one message, the torn one none, and the segment is
 * handed over once they are stored (renamed stored-: never replayed), so a further restart stores nothing twice. The
 * messages' raw mail is read from there, and the files go with the last message whose raw mail they hold.
 */
import fs from 'node:fs';
import path from 'node:path';
import { encodeRecord } from '../../local/inbound-spool';
import { inboundSpoolDir } from '../../local/config';
import { http } from '../support/http';
import { eventually, transport } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';

let stack: StackHandle;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const segments = () => (fs.existsSync(inboundSpoolDir(stack.dataDir)) ? fs.readdirSync(inboundSpoolDir(stack.dataDir)).filter((f) => f.startsWith('segment-')) : []);

async function subjects(api: ReturnType<typeof http>, inboxId: string): Promise<string[]> {
  const page = (await api('GET', `/v1/inboxes/${inboxId}/messages?limit=100`)).body;
  return page.messages.map((m: { subject: string }) => m.subject).sort();
}

it('replays a segment a stop left, each whole record exactly once, the torn tail never, then hands it over; its files go with the inbox', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const inbox = (await api('POST', '/v1/inboxes', {})).body as { id: string; email: string };
  await stack.stop();

  const receivedAt = new Date().toISOString();
  const record = (n: number) =>
    Buffer.concat(
      encodeRecord(
        { mailId: `replay${Date.now().toString(36)}${String(n).padStart(12, '0')}`, recipients: [inbox.email], envelopeFrom: 'sender@example.com', receivedAt },
        Buffer.from(`From: sender@example.com\r\nTo: ${inbox.email}\r\nSubject: replayed ${n}\r\n\r\nbody ${n}\r\n`),
      ),
    );
  const torn = record(4).subarray(0, 60);
  fs.mkdirSync(inboundSpoolDir(stack.dataDir), { recursive: true });
  fs.writeFileSync(path.join(inboundSpoolDir(stack.dataDir), 'segment-0000000007'), Buffer.concat([record(1), record(2), record(3), torn]));

  await stack.restart();
  const expected = ['replayed 1', 'replayed 2', 'replayed 3'];
  await eventually(async () => (await subjects(api, inbox.id)).length >= 3 && segments().length === 0, 20_000, 'replayed and removed');
  expect(await subjects(api, inbox.id)).toEqual(expected);
  // Named by an older version (10 digits): renamed to today's 13.
  expect(stack.output()).toMatch(/segment-0000000000007: 60 bytes after its last whole record skipped/);

  // Started again: nothing is left to replay, nothing is stored twice; new mail goes to a segment of its own.
  await stack.stop();
  await stack.restart();
  await transport(stack.smtpPort).sendMail({ from: 'sender@example.com', to: inbox.email, subject: 'after the replay', text: 'new' });
  await eventually(async () => (await subjects(api, inbox.id)).includes('after the replay'), 20_000, 'new mail visible');
  expect(await subjects(api, inbox.id)).toEqual([...expected, 'after the replay'].sort());
  expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(4);
  await eventually(async () => segments().length === 0, 20_000, 'segment of the new mail handed over once stored');

  // The raw mail of each message is read from the spool files it was accepted into; they go with the inbox.
  const spoolFiles = () => fs.readdirSync(inboundSpoolDir(stack.dataDir));
  expect(spoolFiles().length).toBeGreaterThanOrEqual(2);
  const { messages } = (await api('GET', `/v1/inboxes/${inbox.id}/messages?limit=100`)).body as { messages: { id: string; subject: string }[] };
  for (const m of messages) {
    const raw = await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}/messages/${m.id}/raw`, { headers: { 'x-api-key': stack.keys.enterprise } });
    expect(raw.status).toBe(200);
    expect(await raw.text()).toContain(`Subject: ${m.subject}`);
  }
  expect((await api('DELETE', `/v1/inboxes/${inbox.id}`)).status).toBe(200);
  await eventually(async () => spoolFiles().length === 0, 20_000, 'spool files removed with the last message keeping them');
});
