/**
 * SMTP abuse: 200 concurrent connections, idle and slow clients, pipelining, 1,000 RCPTs in one transaction,
 * invalid addresses and 8-bit headers. The server stays up and its memory stays bounded.
 */
import net from 'node:net';
import { http } from '../support/http';
import { eventually, sendMail, sendRaw, smtpSession } from '../support/mail';
import { rssMb } from '../support/poison';
import { startStack, type StackHandle } from '../support/stack';

let stack: StackHandle;
const stackRssMb = () => rssMb(stack.pid());

beforeAll(async () => {
  stack = await startStack({ env: { TEMPMAIL_SMTP_SOCKET_TIMEOUT_MS: '1500' } });
});
afterAll(() => stack.stop());

async function inbox() {
  return (await http(stack.apiUrl, stack.keys.enterprise)('POST', '/v1/inboxes', {})).body as { id: string; email: string };
}

it('serves 200 concurrent connections, each delivering a mail', async () => {
  const before = stackRssMb();
  const target = await inbox();
  const results = await Promise.all(
    Array.from({ length: 200 }, async (_, i) => {
      // From 5 client addresses: one address may hold MAX_CONNECTIONS_PER_CLIENT (50) connections.
      const session = await smtpSession(stack.smtpPort, `127.0.0.${1 + (i % 5)}`);
      await session.say('EHLO many');
      await session.say('MAIL FROM:<a@example.com>');
      await session.say(`RCPT TO:<${target.email}>`);
      await session.say('DATA');
      const reply = await session.say(`Subject: c${i}\r\n\r\nx\r\n.`);
      session.close();
      return reply;
    }),
  );
  expect(results.filter((r) => r.startsWith('250')).length).toBe(200);
  await eventually(async () => (await http(stack.apiUrl, stack.keys.enterprise)('GET', `/v1/inboxes/${target.id}`)).body.message_count === 200, 30_000, '200 messages');
  const after = stackRssMb();
  console.log(`smtp abuse: RSS ${before.toFixed(0)} MB before 200 connections, ${after.toFixed(0)} MB after`);
  expect(after - before).toBeLessThan(300);
}, 60_000);

it('disconnects idle clients after the socket timeout, and serves slow but steady ones', async () => {
  const idle = net.connect({ host: '127.0.0.1', port: stack.smtpPort });
  const closed = await new Promise<string>((resolve) => {
    let text = '';
    idle.on('data', (d) => (text += d.toString()));
    idle.on('close', () => resolve(text));
  });
  expect(closed).toMatch(/^220 /);
  expect(closed).toMatch(/421 /);

  const target = await inbox();
  const slow = await smtpSession(stack.smtpPort);
  await slow.say('EHLO slow');
  await slow.say('MAIL FROM:<a@example.com>');
  await slow.say(`RCPT TO:<${target.email}>`);
  await slow.say('DATA');
  for (const piece of ['Subject: slow\r\n', '\r\n', 'one ', 'byte ', 'at a time']) {
    slow.socket.write(piece);
    await new Promise((r) => setTimeout(r, 400));
  }
  expect(await slow.data('')).toMatch(/^250 /);
  slow.close();
}, 30_000);

it('answers pipelined commands in order', async () => {
  const target = await inbox();
  const socket = net.connect({ host: '127.0.0.1', port: stack.smtpPort });
  const text = await new Promise<string>((resolve) => {
    let buffer = '';
    let commandsSent = false;
    let bodySent = false;
    socket.on('data', (d) => {
      buffer += d.toString();
      if (buffer.includes('220 ') && !commandsSent) {
        commandsSent = true;
        // All in one write: the client does not wait for each reply.
        socket.write(`EHLO pipe\r\nMAIL FROM:<a@example.com>\r\nRCPT TO:<${target.email}>\r\nRCPT TO:<nobody@gmail.com>\r\nDATA\r\n`);
      }
      if (/354 /.test(buffer) && !bodySent) {
        bodySent = true;
        socket.write('Subject: piped\r\n\r\nx\r\n.\r\nQUIT\r\n');
      }
      if (/221 /.test(buffer)) resolve(buffer);
    });
  });
  const codes = [...text.matchAll(/^(\d{3}) /gm)].map((m) => m[1]);
  expect(codes).toEqual(['220', '250', '250', '250', '550', '354', '250', '221']);
});

it('caps one transaction at 100 recipients with 452 and stores the mail once', async () => {
  const target = await inbox();
  const [user, domain] = target.email.split('@');
  const session = await smtpSession(stack.smtpPort);
  await session.say('EHLO rcpt');
  await session.say('MAIL FROM:<a@example.com>');
  const replies: string[] = [];
  for (let i = 0; i < 1000; i++) replies.push(await session.say(`RCPT TO:<${user}+${i}@${domain}>`));
  expect(replies.filter((r) => r.startsWith('250')).length).toBe(100);
  expect(replies.slice(100).every((r) => r.startsWith('452'))).toBe(true);
  await session.say('DATA');
  expect(await session.data('Subject: many rcpt\r\n\r\nx\r\n')).toMatch(/^250 /);
  session.close();
  const api = http(stack.apiUrl, stack.keys.enterprise);
  await eventually(async () => (await api('GET', `/v1/inboxes/${target.id}`)).body.message_count === 1, 10_000, 'one message');
  await new Promise((r) => setTimeout(r, 300));
  expect((await api('GET', `/v1/inboxes/${target.id}`)).body.message_count).toBe(1);
}, 60_000);

it('answers 550 at the end of DATA, not 250, when the inbox was deleted after its RCPT', async () => {
  const target = await inbox();
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const session = await smtpSession(stack.smtpPort);
  await session.say('EHLO late');
  await session.say('MAIL FROM:<a@example.com>');
  expect(await session.say(`RCPT TO:<${target.email}>`)).toMatch(/^250 /);
  expect(await session.say('DATA')).toMatch(/^354 /);
  expect((await api('DELETE', `/v1/inboxes/${target.id}`)).status).toBe(200);
  expect(await session.data('Subject: too late\r\n\r\nx\r\n')).toMatch(/^550 5\.1\.1 /);
  session.close();
});

it('refuses invalid addresses with 5xx and keeps serving; accepts 8-bit headers', async () => {
  const session = await smtpSession(stack.smtpPort);
  await session.say('EHLO bad');
  expect(await session.say('MAIL FROM:<a@example.com>')).toMatch(/^250 /);
  for (const bad of ['RCPT TO:<not an address>', 'RCPT TO:<@tempmail.local>', 'RCPT TO:<a@>', `RCPT TO:<${'x'.repeat(5000)}@tempmail.local>`, 'RCPT TO:']) {
    expect(await session.say(bad)).toMatch(/^5\d\d /);
  }
  session.close();
  const target = await inbox();
  await sendRaw(stack.smtpPort, [target.email], Buffer.from(`From: Zoë <zoe@example.com>\r\nSubject: Grüße aus Köln\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHallo\r\n`, 'utf8'));
  await sendMail(stack.smtpPort, { to: target.email, subject: 'after abuse', text: 'still up' });
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const list = await eventually(async () => {
    const body = (await api('GET', `/v1/inboxes/${target.id}/messages`)).body;
    return body.total === 2 ? body : null;
  }, 10_000, 'two messages');
  expect(list.messages.map((m: { subject: string }) => m.subject).sort()).toEqual(['Grüße aus Köln', 'after abuse']);
});
