/**
 * Download links in the embedded form: served by the local gateway, signed with the data folder's secret, bound to
 * one object, its headers and its expiry, like S3's pre-signed URLs. An edited or expired link is 403.
 */
import { attachmentDownload } from '../../lambdas/core/downloads';
import { http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';
import { storesFor } from '../support/store';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);

async function messageWithAttachments() {
  const inbox = (await api('POST', '/v1/inboxes', {})).body;
  await sendMail(stack.smtpPort, {
    to: inbox.email,
    subject: 'attachments',
    text: 'see attached',
    attachments: [
      { filename: 'report.html', content: '<script>alert(1)</script>', contentType: 'text/html' },
      { filename: 'logo.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47]), contentType: 'image/png' },
    ],
  });
  const listed = await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages?.[0], 10_000, 'the message');
  return { inbox, message: (await api('GET', `/v1/inboxes/${inbox.id}/messages/${listed.id}`)).body };
}

(stack.store === 'embedded' ? describe : describe.skip)('signed download links (embedded form)', () => {
  it('serve the bytes sent, as data: attachment disposition, octet-stream for HTML, nosniff, no-store', async () => {
    const { message } = await messageWithAttachments();
    const [html, png] = message.attachments;
    const res = await fetch(html.download_url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<script>alert(1)</script>');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="report.html"/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const image = await fetch(png.download_url);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-disposition')).toMatch(/^inline; filename="logo.png"/);
    expect(Buffer.from(await image.arrayBuffer())).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  });

  it('are 403 when edited: another object, another disposition or type, a later expiry, a changed signature', async () => {
    const { message } = await messageWithAttachments();
    const [html, png] = message.attachments;
    const edit = (url: string, change: (u: URL) => void) => {
      const edited = new URL(url);
      change(edited);
      return edited.toString();
    };
    const edits = [
      edit(html.download_url, (u) => (u.pathname = new URL(png.download_url).pathname)),
      edit(html.download_url, (u) => u.searchParams.set('disposition', 'inline')),
      edit(html.download_url, (u) => u.searchParams.set('type', 'text/html')),
      edit(html.download_url, (u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))),
      edit(html.download_url, (u) => u.searchParams.set('signature', 'A'.repeat(43))),
      edit(html.download_url, (u) => u.searchParams.delete('signature')),
      // The same signature bytes, written otherwise: base64 decoding would take each of these for the signature.
      edit(html.download_url, (u) => u.searchParams.set('signature', `${u.searchParams.get('signature')}!!`)),
      edit(html.download_url, (u) => u.searchParams.set('signature', `${u.searchParams.get('signature')}=`)),
      edit(html.download_url, (u) => {
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const signature = u.searchParams.get('signature')!;
        const spareBitFlipped = alphabet[alphabet.indexOf(signature.at(-1)!) ^ 1]; // 43 characters carry 258 bits for 256
        u.searchParams.set('signature', signature.slice(0, -1) + spareBitFlipped);
      }),
    ];
    for (const url of edits) {
      const res = await fetch(url);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: { code: 403, message: 'this download link is invalid or has expired' } });
    }
    expect((await fetch(html.download_url)).status).toBe(200);
  });

  it('are 403 once expired', async () => {
    const { inbox, message } = await messageWithAttachments();
    const attachment = message.attachments[0];
    // A link signed with the stack's own secret, expired a second ago.
    const expired = await storesFor(stack).blobs.presignGet(`inboxes/${inbox.id}/${message.id}/${attachment.id}`, -1, attachmentDownload(attachment));
    const res = await fetch(expired.replace(/^http:\/\/127\.0\.0\.1(:\d+)?/, stack.apiUrl));
    expect(res.status).toBe(403);
  });

  it('serve raw mail through the API redirect as message/rfc822, an .eml attachment, not cached', async () => {
    const { inbox, message } = await messageWithAttachments();
    const redirect = await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}/messages/${message.id}/raw`, { headers: { 'X-API-Key': stack.keys.enterprise }, redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const raw = await fetch(redirect.headers.get('location')!);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('message/rfc822');
    expect(raw.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${message.id}.eml"`));
    expect(raw.headers.get('cache-control')).toBe('no-store');
    expect(await raw.text()).toContain('Subject: attachments');
  });
});
