/**
 * Range requests on the local stack's download links, answered as S3 answers them on its pre-signed URLs (so a
 * client that resumes a download or reads part of a large attachment works the same on both forms): one byte range
 * is 206 with Content-Range, a range past the end is 416 with `Content-Range: bytes *\/size`, several ranges or a
 * malformed header are ignored (200, the whole object). Both kinds of stored object: a row (under
 * FILE_BLOB_MIN_BYTES) and a file.
 */
import { randomBytes } from 'node:crypto';
import nodeHttp from 'node:http';
import { FILE_BLOB_MIN_BYTES } from '../../lambdas/store/sqlite-blob-files';
import { http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);

const small = randomBytes(1000);
const large = randomBytes(FILE_BLOB_MIN_BYTES + 100_000);
const links: Record<string, string> = {};

beforeAll(async () => {
  const inbox = (await api('POST', '/v1/inboxes', {})).body as { id: string; email: string };
  await sendMail(stack.smtpPort, {
    to: inbox.email,
    subject: 'ranges',
    text: 'two attachments',
    attachments: [
      { filename: 'small.bin', content: small, contentType: 'application/zip' },
      { filename: 'large.bin', content: large, contentType: 'application/zip' },
    ],
  });
  const listed = await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages?.[0], 30_000, 'the mail');
  const detail = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${listed.id}`)).body as { attachments: { filename: string; download_url: string }[] };
  for (const a of detail.attachments) links[a.filename] = a.download_url;
}, 60_000);

interface Answer {
  status: number;
  headers: nodeHttp.IncomingHttpHeaders;
  body: Buffer;
}

/** One request from its own loopback address, so this file's many small downloads stay within the per-address limit. */
let nextAddress = 10;
function once(url: string, range: string | undefined, method: string): Promise<Answer> {
  const localAddress = `127.0.0.${nextAddress++ % 240 + 10}`;
  return new Promise((resolve, reject) => {
    const req = nodeHttp.request(url, { method, localAddress, agent: false, headers: range === undefined ? {} : { Range: range } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A download, waited for past the account's download limit (other files of the suite use the same account). */
async function get(url: string, range?: string, method = 'GET'): Promise<Answer> {
  for (;;) {
    const answer = await once(url, range, method);
    if (answer.status !== 429) return answer;
    await new Promise((resume) => setTimeout(resume, Number(answer.headers['retry-after'] ?? 1) * 1000));
  }
}

describe.each([
  ['a row', 'small.bin', small],
  ['a file', 'large.bin', large],
])('an object kept as %s', (_kind, name, content) => {
  const size = content.length;

  it('says it accepts byte ranges, and serves the whole object without one', async () => {
    const res = await get(links[name]);
    expect(res.status).toBe(200);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.body.equals(content)).toBe(true);
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=100-', 100, size - 1],
    ['bytes=-50', size - 50, size - 1],
    ['bytes=10-10', 10, 10],
    [`bytes=5-${size + 1000}`, 5, size - 1],
    [`bytes=-${size + 1000}`, 0, size - 1],
  ])('answers %s with 206 and exactly those bytes', async (range, start, end) => {
    const res = await get(links[name], range);
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.body.equals(content.subarray(start, end + 1))).toBe(true);
  });

  it('answers HEAD with a range as the GET would, without a body', async () => {
    const res = await get(links[name], 'bytes=0-99', 'HEAD');
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-99/${size}`);
    expect(res.headers['content-length']).toBe('100');
  });

  it.each([`bytes=${size}-`, `bytes=${size + 5}-${size + 10}`, 'bytes=-0'])('answers %s (past the end) with 416 in the error format', async (range) => {
    const res = await get(links[name], range);
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${size}`);
    expect(JSON.parse(res.body.toString())).toEqual({ error: { code: 416, message: expect.stringMatching(/range/) } });
  });

  it.each(['bytes=0-9,20-29', 'bytes=9-0', 'items=0-9', 'bytes=a-b', 'bytes=0x0-9'])('ignores %s (several ranges, or not a byte range): 200 and the whole object', async (range) => {
    const res = await get(links[name], range);
    expect(res.status).toBe(200);
    expect(res.headers['content-range']).toBeUndefined();
    expect(res.body.equals(content)).toBe(true);
  });
});
