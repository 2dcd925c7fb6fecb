/**
 * The embedded form's inbound spool across restarts, on a real stack: a segment left by a stop before its mail was
 * stored (written here as the stack writes one, with a torn record at its tail, as a crash mid-write leaves it) is
 * replayed at the next start: each whole record becomes exactly one message, the torn one none, and the segment is
 * removed once they are stored, so a further restart stores nothing twice. Mail accepted over SMTP leaves no segment
 * behind once stored.
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

it('replays a segment a stop left, each whole record exactly once, the torn tail never, and then removes it', async () => {
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
  expect(stack.output()).toMatch(/segment-0000000007: 60 bytes after its last whole record skipped/);

  // Started again: nothing is left to replay, nothing is stored twice; new mail goes to a segment of its own.
  await stack.stop();
  await stack.restart();
  await transport(stack.smtpPort).sendMail({ from: 'sender@example.com', to: inbox.email, subject: 'after the replay', text: 'new' });
  await eventually(async () => (await subjects(api, inbox.id)).includes('after the replay'), 20_000, 'new mail visible');
  expect(await subjects(api, inbox.id)).toEqual([...expected, 'after the replay'].sort());
  expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(4);
  await eventually(async () => segments().length === 0, 20_000, 'segment of the new mail removed once stored');
});
