/**
 * The local SMTP server greets at once (local/smtp-greeting.ts), where smtp-server holds its greeting on a 100 ms timer.
 * Timers are frozen (jest's fake setTimeout) while real sockets run: the prompt server's greeting arrives all the same,
 * smtp-server's own arrives only once 100 ms of timer time have passed. No figure of wall time is asserted.
 */
import net from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { PromptSMTPServer } from '../../local/smtp-greeting';

const OPTIONS: SMTPServerOptions = { authOptional: true, disabledCommands: ['AUTH', 'STARTTLS'], disableReverseLookup: true, logger: false };
const open: { server: SMTPServer; sockets: net.Socket[] }[] = [];

async function listening(server: SMTPServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  open.push({ server, sockets: [] });
  return (server.server.address() as net.AddressInfo).port;
}

/** Connects; `first` resolves with the first line the server sends. */
function connect(port: number): { first: Promise<string>; received: () => string } {
  const socket = net.connect(port, '127.0.0.1');
  open.at(-1)!.sockets.push(socket);
  let text = '';
  const first = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n')) resolve(text.split('\r\n')[0]);
    });
    socket.on('error', reject);
  });
  return { first, received: () => text };
}

beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
afterEach(async () => {
  jest.useRealTimers();
  for (const { server, sockets } of open.splice(0)) {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

it('greets without smtp-server’s 100 ms wait; smtp-server itself waits for it', async () => {
  const plain = connect(await listening(new SMTPServer(OPTIONS)));
  const prompt = connect(await listening(new PromptSMTPServer(OPTIONS)));
  expect(await prompt.first).toMatch(/^220 /);
  // Both connections were made before the prompt greeting came; the plain one's greeting waits on its frozen timer.
  await new Promise((resolve) => setImmediate(resolve));
  expect(plain.received()).toBe('');
  await jest.advanceTimersByTimeAsync(100);
  expect(await plain.first).toMatch(/^220 /);
});

it('serves a client that talks the moment it connects (smtp-server’s own onConnect answered a turn later: 421 too soon)', async () => {
  const port = await listening(new PromptSMTPServer(OPTIONS));
  const socket = net.connect(port, '127.0.0.1');
  open.at(-1)!.sockets.push(socket);
  let text = '';
  socket.once('connect', () => socket.write('EHLO early.example\r\n'));
  const ehlo = new Promise<void>((resolve) =>
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (/^(250|421) /m.test(text)) resolve();
    }),
  );
  await ehlo;
  expect(text.split('\r\n').filter((line) => /^\d{3} /.test(line)).map((line) => line.slice(0, 3))).toEqual(['220', '250']);
});

it('still refuses a connection past maxClients with 421', async () => {
  const port = await listening(new PromptSMTPServer({ ...OPTIONS, maxClients: 1 }));
  expect(await connect(port).first).toMatch(/^220 /);
  expect(await connect(port).first).toMatch(/^421 .*Too many connected clients/);
});
