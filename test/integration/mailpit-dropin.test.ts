/**
 * The local form as a drop-in for Mailpit users (issue 23): an application configured as for production (STARTTLS
 * required, SMTP credentials) sends to the stack over real SMTP with nodemailer, and the mail is read back over the
 * API. Each stack here is `npm start` in a child process with its own data folder.
 */
import { spawnSync } from 'node:child_process';
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
import { DEFAULT_TTL_SECONDS } from '../../lambdas/core/inbox';

const ROOT = path.resolve(__dirname, '..', '..');
/** The admin CLI as a user runs it, on a stack's data folder. */
const tempmail = (dataDir: string, ...args: string[]) =>
  spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tempmail'), args, { cwd: ROOT, env: { ...process.env, TEMPMAIL_DATA_DIR: dataDir }, encoding: 'utf8', timeout: 60_000 });

/**
 * The statuses of `n` requests on `key` (GET /v1/domains, the cheapest route), one after the other as fast as they
 * are answered: far past the dev plan's burst of 10 and 1 a second however slow the machine (at 200 ms a request, 40
 * take 8 s: 18 tokens).
 */
async function burst(stack: StackHandle, key: string, n: number): Promise<number[]> {
  const api = http(stack.apiUrl, key);
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await api('GET', '/v1/domains')).status);
  return statuses;
}

/** `npm start` as a user runs it: no TEMPMAIL_NO_DEV_KEY (the test stacks set it), the seeded keys kept beside. */
const withDevKey = (env: Record<string, string> = {}) => ({ store: 'embedded' as const, env: { TEMPMAIL_NO_DEV_KEY: '0', ...env } });

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

  it('catch-all is off by default: mail to an address without an inbox is refused', async () => {
    const session = await smtpSession(stack.smtpPort);
    await session.say('EHLO client.example');
    await session.say('MAIL FROM:<app@example.com>');
    expect(await session.say(`RCPT TO:<${name('nobody-')}@tempmail.local>`)).toMatch(/^550 5\.1\.1 /);
    session.close();
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

describe('one local account: the dev key in <data folder>/dev-key, never rate limited unless asked', () => {
  let stack: StackHandle;
  beforeAll(async () => {
    stack = await startStack(withDevKey());
  });
  afterAll(() => stack?.stop());
  const devKey = () => fs.readFileSync(path.join(stack.dataDir, 'dev-key'), 'utf8').trim();

  it('writes the printed dev key to the file, mode 0600, and the key works', async () => {
    const file = path.join(stack.dataDir, 'dev-key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(devKey()).toMatch(/^tm_\w{20,}$/);
    expect(stack.output()).toContain(devKey());
    expect((await http(stack.apiUrl, devKey())('GET', '/v1/domains')).status).toBe(200);
    // The store keeps its hash only.
    expect(fs.readFileSync(path.join(stack.dataDir, 'tempmail.db')).includes(Buffer.from(devKey()))).toBe(false);
  });

  it('the dev key is never throttled; a seeded dev-plan key and one made with `keys create --plan dev` keep the plan limit (429)', async () => {
    expect((await burst(stack, devKey(), 150)).filter((s) => s !== 200)).toEqual([]);
    expect(await burst(stack, stack.keys.dev, 40)).toContain(429);
    const created = tempmail(stack.dataDir, 'keys', 'create', '--plan', 'dev');
    expect(created.status).toBe(0);
    expect(await burst(stack, created.stdout.trim(), 40)).toContain(429);
  });

  it('keys made with the CLI are accounts of their own: they do not see the dev account\'s inboxes', async () => {
    const mine = (await http(stack.apiUrl, devKey())('POST', '/v1/inboxes', { username: name('mine-') })).body;
    const other = tempmail(stack.dataDir, 'keys', 'create', '--plan', 'enterprise').stdout.trim();
    expect((await http(stack.apiUrl, other)('GET', `/v1/inboxes/${mine.id}`)).status).toBe(404);
    expect((await http(stack.apiUrl, devKey())('GET', `/v1/inboxes/${mine.id}`)).status).toBe(200);
  });

  it('a restart keeps the same key (and account); a revoked dev key is replaced by a new one at the next start', async () => {
    const before = devKey();
    const inbox = (await http(stack.apiUrl, before)('POST', '/v1/inboxes', {})).body;
    await stack.stop();
    await stack.restart();
    expect(devKey()).toBe(before);
    expect((await http(stack.apiUrl, before)('GET', `/v1/inboxes/${inbox.id}`)).status).toBe(200);
    expect(tempmail(stack.dataDir, 'keys', 'revoke', before).status).toBe(0);
    await stack.stop();
    await stack.restart();
    expect(devKey()).not.toBe(before);
    expect(fs.statSync(path.join(stack.dataDir, 'dev-key')).mode & 0o777).toBe(0o600);
    expect((await http(stack.apiUrl, devKey())('GET', '/v1/domains')).status).toBe(200);
  });
});

describe('TEMPMAIL_RATE_LIMITS=on limits the dev key too; TEMPMAIL_NO_DEV_KEY=1 writes none', () => {
  it('throttles the dev key as the dev plan', async () => {
    const stack = await startStack(withDevKey({ TEMPMAIL_RATE_LIMITS: 'on' }));
    try {
      const key = fs.readFileSync(path.join(stack.dataDir, 'dev-key'), 'utf8').trim();
      expect(await burst(stack, key, 40)).toContain(429);
    } finally {
      await stack.stop();
    }
  });

  it('has no dev key file with TEMPMAIL_NO_DEV_KEY=1 (the test stacks\' setting)', async () => {
    const stack = await startStack({ store: 'embedded' });
    try {
      expect(fs.existsSync(path.join(stack.dataDir, 'dev-key'))).toBe(false);
    } finally {
      await stack.stop();
    }
  });
});

describe('catch-all (TEMPMAIL_CATCH_ALL=1): mail to any address of our domains makes its inbox in the dev account', () => {
  const MAX_INBOXES = 4;
  let stack: StackHandle;
  let dev: ReturnType<typeof http>;
  beforeAll(async () => {
    stack = await startStack(withDevKey({ TEMPMAIL_CATCH_ALL: '1', TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ dev: { max_inboxes: MAX_INBOXES } }) }));
    dev = http(stack.apiUrl, fs.readFileSync(path.join(stack.dataDir, 'dev-key'), 'utf8').trim());
  });
  afterAll(() => stack?.stop());

  const inboxes = async () => (await dev('GET', '/v1/inboxes?limit=100')).body.inboxes as { id: string; email: string; created_at: string; expires_at: string }[];

  it('an application with requireTLS and credentials sends to a random address; the mail is found through the API with the dev key', async () => {
    const user = name('signup-');
    const info = await appTransport(stack.smtpPort, { authMethod: 'LOGIN' }).sendMail({
      from: 'App <app@example.com>',
      to: `${user}+welcome@inbox.test`,
      subject: 'Welcome aboard',
      text: 'Your code is 482913',
    });
    expect(info.accepted).toEqual([`${user}+welcome@inbox.test`]);
    const inbox = (await inboxes()).find((i) => i.email === `${user}@inbox.test`);
    expect(inbox).toBeDefined();
    expect((Date.parse(inbox!.expires_at) - Date.parse(inbox!.created_at)) / 1000).toBe(DEFAULT_TTL_SECONDS);
    const [message] = await messagesOf(stack, fs.readFileSync(path.join(stack.dataDir, 'dev-key'), 'utf8').trim(), inbox!.id, 1);
    expect(message.subject).toBe('Welcome aboard');
    // A second mail to the same address goes to the same inbox.
    await appTransport(stack.smtpPort).sendMail({ from: 'app@example.com', to: `${user}@inbox.test`, subject: 'again', text: 'x' });
    expect((await inboxes()).filter((i) => i.email === `${user}@inbox.test`)).toHaveLength(1);
  });

  it('reserved names and other domains stay refused, and make no inbox', async () => {
    const before = (await inboxes()).length;
    const session = await smtpSession(stack.smtpPort);
    await session.say('EHLO client.example');
    await session.say('MAIL FROM:<app@example.com>');
    // Refused as reserved, not with the generic reply: the sender learns why catch-all did not catch it.
    expect(await session.say('RCPT TO:<postmaster@tempmail.local>')).toMatch(/^550 5\.1\.1 No such mailbox: a reserved name /);
    expect(await session.say('RCPT TO:<no-reply+x@mailbox.test>')).toMatch(/^550 5\.1\.1 No such mailbox: a reserved name /);
    expect(await session.say(`RCPT TO:<${name('x')}@example.org>`)).toMatch(/^550 5\.7\.1 /);
    session.close();
    expect((await inboxes()).length).toBe(before);
  });

  it('the account\'s inbox limit holds: past it, RCPT gets a clear 452 and no inbox is made', async () => {
    const session = await smtpSession(stack.smtpPort);
    await session.say('EHLO client.example');
    await session.say('MAIL FROM:<app@example.com>');
    for (let n = (await inboxes()).length; n < MAX_INBOXES; n++) expect(await session.say(`RCPT TO:<${name('fill-')}@tempmail.local>`)).toMatch(/^250 /);
    const refused = await session.say(`RCPT TO:<${name('one-too-many-')}@tempmail.local>`);
    expect(refused).toMatch(/^452 4\.2\.2 .*live inboxes/);
    session.close();
    expect((await inboxes()).length).toBe(MAX_INBOXES);
  });

  it('refuses to start with TEMPMAIL_NO_DEV_KEY=1 (no account to catch for), naming both settings', async () => {
    await expect(startStack({ store: 'embedded', env: { TEMPMAIL_CATCH_ALL: '1' } })).rejects.toThrow(/TEMPMAIL_CATCH_ALL=1 .*TEMPMAIL_NO_DEV_KEY=1/);
  });
});
