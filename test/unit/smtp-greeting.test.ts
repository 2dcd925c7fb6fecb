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

/**
 * Connects, writing `opening` the moment the socket is up (a client that talks first); `first` resolves with the
 * first line the server sends, `reply(pattern)` once a line matches it; `codes()` are the final reply lines' codes.
 */
function connect(port: number, opening?: string) {
  const socket = net.connect(port, '127.0.0.1');
  open.at(-1)!.sockets.push(socket);
  if (opening) socket.once('connect', () => socket.write(opening));
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  const reply = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const line = text.split('\r\n').slice(0, -1).find((l) => pattern.test(l));
        if (line === undefined) return;
        socket.off('data', check);
        resolve(line);
      };
      socket.on('data', check);
      socket.once('error', reject);
    });
  return {
    first: reply(/./),
    reply,
    received: () => text,
    codes: () => text.split('\r\n').filter((line) => /^\d{3} /.test(line)).map((line) => line.slice(0, 3)),
  };
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
  const early = connect(await listening(new PromptSMTPServer(OPTIONS)), 'EHLO early.example\r\n');
  await early.reply(/^(250|421) /);
  expect(early.codes()).toEqual(['220', '250']);
});

it('still refuses a connection past maxClients with 421', async () => {
  const port = await listening(new PromptSMTPServer({ ...OPTIONS, maxClients: 1 }));
  expect(await connect(port).first).toMatch(/^220 /);
  expect(await connect(port).first).toMatch(/^421 .*Too many connected clients/);
});
