/**
 * The local form as a drop-in for Mailpit users (issue 23): an application configured as for production (STARTTLS
 * required, SMTP credentials) sends to the stack over real SMTP with nodemailer, and the mail is read back over the
 * API. Each stack here is `npm start` in a child process with its own data folder.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { http } from '../support/http';
import { eventually, smtpSession } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';
import { smtpTlsFiles } from '../../local/smtp-tls';

const name = (p: string) => `${p}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** What an application configured for a real provider sends with: STARTTLS required, credentials given. */
const appTransport = (port: number, options: { ca?: Buffer; authMethod?: string; auth?: boolean } = {}) =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    // Verified against the stack's own certificate when the test has it: a client told to trust it can.
    tls: options.ca ? { ca: options.ca, servername: 'localhost' } : { rejectUnauthorized: false },
    ...(options.auth === false ? {} : { auth: { user: 'app@example.com', pass: 'any password at all' }, authMethod: options.authMethod ?? 'PLAIN' }),
  });

async function messagesOf(stack: StackHandle, key: string, inboxId: string, count: number) {
  const api = http(stack.apiUrl, key);
  return eventually(async () => {
    const reply = await api('GET', `/v1/inboxes/${inboxId}/messages`);
    return reply.body.messages?.length >= count ? reply.body.messages : null;
  }, 20_000, `${count} message(s) in ${inboxId}`);
}

/** The certificate the server presents after STARTTLS, as a raw client sees it. */
async function presentedCertificate(port: number): Promise<tls.PeerCertificate> {
  const session = await smtpSession(port);
  expect(await session.say('EHLO client.example')).toMatch(/^250 /);
  expect(await session.say('STARTTLS')).toMatch(/^220 /);
  session.socket.removeAllListeners('data');
  const secured = tls.connect({ socket: session.socket as net.Socket, rejectUnauthorized: false, servername: 'localhost' });
  await new Promise<void>((resolve, reject) => secured.once('secureConnect', resolve).once('error', reject));
  const certificate = secured.getPeerCertificate();
  secured.destroy();
  return certificate;
}

/** The extensions EHLO offers, one word each (STARTTLS, AUTH PLAIN LOGIN, SIZE …). */
async function ehloExtensions(port: number): Promise<string[]> {
  const socket = net.connect({ host: '127.0.0.1', port });
  let text = '';
  socket.on('data', (chunk) => {
    text += chunk.toString();
    if (/^220 /m.test(text) && !text.includes('EHLO sent')) {
      text += '\nEHLO sent\n';
      socket.write('EHLO client.example\r\n');
    }
  });
  await eventually(async () => /^250 /m.test(text.split('EHLO sent')[1] ?? ''), 10_000, 'the EHLO reply');
  socket.end('QUIT\r\n');
  return (text.split('EHLO sent')[1] ?? '').split(/\r?\n/).filter((l) => /^250[- ]/.test(l)).map((l) => l.slice(4));
}

describe('SMTP as applications expect it: STARTTLS and AUTH', () => {
  let stack: StackHandle;
  beforeAll(async () => {
    stack = await startStack({ store: 'embedded' });
  });
  afterAll(() => stack?.stop());

  it('offers STARTTLS and AUTH PLAIN LOGIN; an application with requireTLS and credentials delivers, verified against the made certificate', async () => {
    expect(await ehloExtensions(stack.smtpPort)).toEqual(expect.arrayContaining(['STARTTLS', 'AUTH PLAIN LOGIN']));
    const files = smtpTlsFiles(stack.dataDir);
    expect(fs.statSync(files.key).mode & 0o777).toBe(0o600);
    const api = http(stack.apiUrl, stack.keys.dev);
    for (const authMethod of ['PLAIN', 'LOGIN']) {
      const inbox = (await api('POST', '/v1/inboxes', { username: name(`tls-${authMethod.toLowerCase()}-`) })).body;
      const info = await appTransport(stack.smtpPort, { ca: fs.readFileSync(files.cert), authMethod }).sendMail({
        from: 'App <app@example.com>',
        to: inbox.email,
        subject: `over STARTTLS with AUTH ${authMethod}`,
        text: 'hello',
      });
      expect(info.accepted).toEqual([inbox.email]);
      const [message] = await messagesOf(stack, stack.keys.dev, inbox.id, 1);
      expect(message.subject).toBe(`over STARTTLS with AUTH ${authMethod}`);
    }
  });

  it('keeps the certificate it made across restarts (a client told to trust it keeps trusting it)', async () => {
    const files = smtpTlsFiles(stack.dataDir);
    const before = fs.readFileSync(files.cert, 'utf8');
    const presented = await presentedCertificate(stack.smtpPort);
    expect(presented.fingerprint256).toBe(new crypto.X509Certificate(before).fingerprint256);
    await stack.stop();
    await stack.restart();
    expect(fs.readFileSync(files.cert, 'utf8')).toBe(before);
    expect((await presentedCertificate(stack.smtpPort)).fingerprint256).toBe(presented.fingerprint256);
  });
});

describe('TEMPMAIL_SMTP_TLS_CERT / _KEY and TEMPMAIL_SMTP_AUTH=off', () => {
  let stack: StackHandle;
  let own: { cert: string; key: string };
  beforeAll(async () => {
    const { generate } = await import('selfsigned');
    const pems = await generate([{ name: 'commonName', value: 'my-own.example' }], { keyType: 'ec', curve: 'P-256' });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-own-cert-'));
    own = { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
    fs.writeFileSync(own.cert, pems.cert);
    fs.writeFileSync(own.key, pems.private, { mode: 0o600 });
    stack = await startStack({ store: 'embedded', env: { TEMPMAIL_SMTP_TLS_CERT: own.cert, TEMPMAIL_SMTP_TLS_KEY: own.key, TEMPMAIL_SMTP_AUTH: 'off' } });
  });
  afterAll(() => stack?.stop());

  it('presents the named certificate, makes none in the data folder, and offers no AUTH', async () => {
    const presented = await presentedCertificate(stack.smtpPort);
    expect(presented.fingerprint256).toBe(new crypto.X509Certificate(fs.readFileSync(own.cert)).fingerprint256);
    expect(fs.existsSync(smtpTlsFiles(stack.dataDir).cert)).toBe(false);
    const extensions = await ehloExtensions(stack.smtpPort);
    expect(extensions).toContain('STARTTLS');
    expect(extensions.filter((e) => e.startsWith('AUTH'))).toEqual([]);
    const session = await smtpSession(stack.smtpPort);
    await session.say('EHLO client.example');
    expect(await session.say('AUTH PLAIN AGFwcABwYXNz')).toMatch(/^5\d\d /);
    session.close();
    // Without credentials, STARTTLS still serves an application that requires it.
    const inbox = (await http(stack.apiUrl, stack.keys.dev)('POST', '/v1/inboxes', {})).body;
    await appTransport(stack.smtpPort, { auth: false }).sendMail({ from: 'a@example.com', to: inbox.email, subject: 'no auth', text: 'x' });
    expect((await messagesOf(stack, stack.keys.dev, inbox.id, 1))[0].subject).toBe('no auth');
  });

  it('refuses to start with only one of the two settings, naming them', async () => {
    await expect(startStack({ store: 'embedded', env: { TEMPMAIL_SMTP_TLS_CERT: own.cert } })).rejects.toThrow(/TEMPMAIL_SMTP_TLS_CERT and TEMPMAIL_SMTP_TLS_KEY go together/);
  });
});
