/**
 * The embedded store's JSON reader (lambdas/store/json-read-thread.ts; issue 27 item 2): a body object kept in a file
 * is read and parsed on a thread of its own, and comes back with its strings cut, so that four parallel GETs of a
 * 38 MB message no longer hold the event loop (1.2 s before). Counted in turns of the event loop, not time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cutStrings } from '../../lambdas/core/message';
import { JsonReadThread } from '../../lambdas/store/json-read-thread';
import { turnsDuring } from '../support/event-loop';

jest.setTimeout(120_000);

let dir: string;
const reader = new JsonReadThread();
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-json-read-'))));
afterAll(async () => {
  await reader.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('reads and parses a large JSON file off the event loop, to the object the event loop would make, cut', async () => {
  const file = path.join(dir, 'body.json');
  const body = { text: `"quoted" é 😀 ${'x'.repeat(16 * 1024 * 1024)}`, html: '<p>hi</p>', attachments: [{ id: 'att_1' }], parse_error: null };
  fs.writeFileSync(file, JSON.stringify(body));
  // On the event loop, as the store read it before: the loop cannot turn while it decodes and parses.
  const here = await turnsDuring(async () => cutStrings(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>, 1000));
  const there = await turnsDuring(() => reader.read(file, 1000));
  expect(there.result).toEqual(here.result);
  expect(there.result.cut).toEqual(['text']);
  expect(there.result.value.text).toBe(body.text.slice(0, 1000));
  // With the reader's thread the loop is free the whole time.
  expect(here.turns).toBe(0);
  expect(there.turns).toBeGreaterThan(5);
});

it('fails a read as the read or the parse failed: a file removed meanwhile says ENOENT (the store reads the row again)', async () => {
  await expect(reader.read(path.join(dir, 'gone.json'), 10)).rejects.toMatchObject({ code: 'ENOENT' });
  const broken = path.join(dir, 'broken.json');
  fs.writeFileSync(broken, '{"text": "cut short');
  await expect(reader.read(broken, 10)).rejects.toThrow(/JSON/);
  // The thread is still there for the next read.
  fs.writeFileSync(path.join(dir, 'ok.json'), '{"a":"bcd"}');
  expect(await reader.read(path.join(dir, 'ok.json'), 2)).toEqual({ value: { a: 'bc' }, cut: ['a'] });
});

it('fails the reads in flight when closed, and starts a thread again for the next', async () => {
  const other = new JsonReadThread();
  fs.writeFileSync(path.join(dir, 'small.json'), '{"a":"b"}');
  const inFlight = other.read(path.join(dir, 'small.json'), 10);
  await other.close();
  await expect(inFlight).rejects.toThrow(/closed/);
  expect(await other.read(path.join(dir, 'small.json'), 10)).toEqual({ value: { a: 'b' }, cut: [] });
  await other.close();
});
