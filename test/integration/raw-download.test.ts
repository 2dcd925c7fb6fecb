/**
 * Raw mail as the deployed REST API serves it: a 302 to a pre-signed S3 URL, so a 6 MB mail (over Lambda's 6 MB
 * response limit once base64-encoded) downloads whole. And the local gateway hands a function's answer on as API
 * Gateway does: base64 as text (no binary media types), over 6 MB a 502 in the error format.
 */
import { createHash, randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { TempMailClient } from '../../client';
import { GATEWAY_RESPONSES } from '../../lambdas/contract/gateway-responses';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../lambdas/core/limits';
import { proxyReply } from '../../local/gateway';
import { http } from '../support/http';
import { asSent, eventually, sendRaw } from '../support/mail';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);
const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');

it('downloads a 6 MB raw mail through a redirect to a pre-signed URL', async () => {
  const inbox = (await api('POST', '/v1/inboxes', {})).body as { id: string; email: string };
  const raw = await new MailComposer({
    from: 'big@example.com',
    to: inbox.email,
    subject: 'six megabytes',
    text: 'see attachment',
    attachments: [{ filename: 'big.bin', content: randomBytes(4_500_000) }],
  })
    .compile()
    .build();
  expect(raw.length).toBeGreaterThan(6_000_000);
  await sendRaw(stack.smtpPort, [inbox.email], raw);
  const listed = await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages?.[0], 30_000, 'the 6 MB mail');

  const res = await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}/messages/${listed.id}/raw`, { headers: { 'X-API-Key': stack.keys.enterprise }, redirect: 'manual' });
  expect(res.status).toBe(302);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const location = res.headers.get('location')!;
  // S3's pre-signed URL on the stand-ins, the gateway's signed link on the embedded store.
  expect(location).toMatch(stack.store === 'dynamodb' ? /X-Amz-Signature=/ : /\/_downloads\/.*[?&]signature=/);

  // The pre-signed URL needs no key.
  const download = await fetch(location);
  expect(download.status).toBe(200);
  expect(download.headers.get('content-type')).toBe('message/rfc822');
  expect(download.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${listed.id}.eml"`));
  expect(download.headers.get('cache-control')).toBe('no-store');
  const bytes = Buffer.from(await download.arrayBuffer());
  // nodemailer's transport ends the data with CRLF before the dot; the stored mail is what the server received,
  // after the Return-Path and Received fields it prepended.
  const sent = asSent(bytes);
  expect(sent.length).toBeGreaterThanOrEqual(raw.length);
  expect(sha(sent.subarray(0, raw.length))).toBe(sha(raw));
  expect(bytes.length).toBe(listed.size);

  // The typed client follows the redirect itself (without sending the key on).
  const client = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl });
  expect(sha(await client.getRawMessage(inbox.id, listed.id))).toBe(sha(bytes));

  // ?as=url: the same link as JSON, for browsers (fetch keeps X-API-Key on a redirect to another origin).
  const asUrl = await api('GET', `/v1/inboxes/${inbox.id}/messages/${listed.id}/raw?as=url`);
  expect(asUrl.status).toBe(200);
  expect(asUrl.body.expires_in).toBeGreaterThan(0);
  const linked = await fetch(asUrl.body.download_url, { headers: { Origin: 'http://localhost:1' } });
  expect(sha(Buffer.from(await linked.arrayBuffer()))).toBe(sha(bytes));
  // A page on another origin may read it (the viewer opened at localhost, the local links on 127.0.0.1), as the
  // deployed bucket's CORS rules allow; the S3 server of the dynamodb form is not the deployed bucket.
  if (stack.store === 'embedded') expect(linked.headers.get('access-control-allow-origin')).toBe('*');
  const other = await api('GET', `/v1/inboxes/${inbox.id}/messages/${listed.id}/raw?as=page`);
  expect(other.status).toBe(400);
  expect(other.body.error.message).toMatch(/as/);
}, 90_000);

describe('the local gateway answers as API Gateway without binary media types', () => {
  it('sends a base64 body as the base64 text', () => {
    const reply = proxyReply({ statusCode: 200, headers: { 'Content-Type': 'message/rfc822' }, body: Buffer.from('Subject: hi\r\n').toString('base64'), isBase64Encoded: true }, 'r1');
    expect(reply.status).toBe(200);
    expect(reply.body.toString('utf8')).toBe(Buffer.from('Subject: hi\r\n').toString('base64'));
  });

  it('turns an answer over Lambda’s 6 MB response limit into a 502 in the error format', () => {
    const body = 'x'.repeat(LAMBDA_RESPONSE_LIMIT_BYTES);
    const reply = proxyReply({ statusCode: 200, body }, 'r2');
    expect(reply.status).toBe(502);
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({ error: { code: 502, message: GATEWAY_RESPONSES.DEFAULT_5XX.message } });
    // Just under the limit passes.
    expect(proxyReply({ statusCode: 200, body: 'x'.repeat(LAMBDA_RESPONSE_LIMIT_BYTES - 100) }, 'r3').status).toBe(200);
  });
});
