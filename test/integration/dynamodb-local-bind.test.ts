/**
 * DynamoDB Local listens on the host it is given (127.0.0.1), never on every interface, and will not start on a port
 * something else holds. Real processes and sockets throughout: the kernel's socket tables (/proc/net/tcp, tcp6) say
 * what the java process listens on, and the AWS SDK talks to it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { javaArgs, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/ports';

interface Listener {
  family: 'tcp' | 'tcp6';
  address: string;
  port: number;
  inode: string;
}

/** One 32-bit word of a /proc/net address, printed in host byte order, as its bytes in network order. */
function wordBytes(hex: string): number[] {
  const bytes = Buffer.alloc(4);
  if (os.endianness() === 'LE') bytes.writeUInt32LE(parseInt(hex, 16));
  else bytes.writeUInt32BE(parseInt(hex, 16));
  return [...bytes];
}

function decodeAddress(hex: string): string {
  const bytes = hex.match(/.{8}/g)!.flatMap(wordBytes);
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.every((b) => b === 0)) return '::';
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return groups.join(':');
}

/** Every listening TCP socket in this network namespace, whoever owns it. */
function listeners(): Listener[] {
  return (['tcp', 'tcp6'] as const).flatMap((family) =>
    fs
      .readFileSync(`/proc/net/${family}`, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === '0A') // TCP_LISTEN
      .map((fields) => {
        const [address, port] = fields[1].split(':');
        return { family, address: decodeAddress(address), port: parseInt(port, 16), inode: fields[9] };
      }),
  );
}

/** The socket inodes a process holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** The java process the shell guard started. */
function javaChildOf(guardPid: number): number {
  const children = fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        const [comm, rest] = [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), stat.slice(stat.lastIndexOf(')') + 2).split(' ')];
        return Number(rest[1]) === guardPid && comm === 'java' ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });
  expect(children).toHaveLength(1);
  return children[0];
}

const clientFor = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** A plain TCP server (not DynamoDB Local) holding host:port. */
const occupy = (host: string, port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-ddb-bind-'));
let dynamo: DynamoDbLocal;
let port: number;

beforeAll(async () => {
  port = await freePort();
  dynamo = await startDynamoDbLocal({ host: '127.0.0.1', port, dataDir: path.join(dataDir, 'dynamodb') });
});

afterAll(async () => {
  await dynamo?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('the java process listens on 127.0.0.1 only: no wildcard or IPv6 socket for its port', async () => {
  const java = javaChildOf(dynamo.process.pid!);
  const owned = socketInodes(java);
  const onPort = listeners().filter((l) => l.port === port);
  expect(onPort.map(({ family, address }) => ({ family, address }))).toEqual([{ family: 'tcp', address: '127.0.0.1' }]);
  expect(owned.has(onPort[0].inode)).toBe(true);
  // And from the outside: an address of this host other than loopback is refused.
  const other = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal);
  if (other) expect(await accepts(other.address, port)).toBe(false);
  expect(await accepts('127.0.0.1', port)).toBe(true);
});

test('CreateTable, PutItem and GetItem round trip through the AWS SDK', async () => {
  const client = clientFor(dynamo.endpoint);
  await client.send(
    new CreateTableCommand({
      TableName: 'BindCheck',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await client.send(new PutItemCommand({ TableName: 'BindCheck', Item: { pk: { S: 'inbox#1' }, body: { S: 'hello' } } }));
  const { Item } = await client.send(new GetItemCommand({ TableName: 'BindCheck', Key: { pk: { S: 'inbox#1' } }, ConsistentRead: true }));
  expect(Item).toEqual({ pk: { S: 'inbox#1' }, body: { S: 'hello' } });
  client.destroy();
});

test('a second DynamoDB Local on the same port fails, saying so, and the first keeps serving', async () => {
  await expect(startDynamoDbLocal({ host: '127.0.0.1', port }, () => undefined)).rejects.toThrow(
    `DynamoDB Local cannot start: port ${port} on 127.0.0.1 is already in use by another process`,
  );
  const client = clientFor(dynamo.endpoint);
  const { Item } = await client.send(new GetItemCommand({ TableName: 'BindCheck', Key: { pk: { S: 'inbox#1' } } }));
  expect(Item?.body).toEqual({ S: 'hello' });
  client.destroy();
});

test('a port some other server holds on every interface is refused too', async () => {
  const taken = await freePort();
  const squatter = await occupy('0.0.0.0', taken);
  try {
    await expect(startDynamoDbLocal({ host: '127.0.0.1', port: taken }, () => undefined)).rejects.toThrow(
      `DynamoDB Local cannot start: port ${taken} on 127.0.0.1 is already in use by another process`,
    );
  } finally {
    await new Promise((r) => squatter.close(r));
  }
});

test('the launcher itself exits 1, never reporting READY, when it cannot bind (a port taken after the check)', async () => {
  const taken = await freePort();
  const squatter = await occupy('127.0.0.1', taken);
  try {
    const java = spawn('java', await javaArgs({ host: '127.0.0.1', port: taken }), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    java.stdout.on('data', (d) => (stdout += d));
    java.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => java.once('exit', resolve));
    expect(code).toBe(1);
    expect(stdout).not.toMatch(/^READY/m);
    expect(stderr).toContain(`DynamoDB Local could not listen on 127.0.0.1:${taken}`);
    expect(stderr).toContain('Address already in use');
  } finally {
    await new Promise((r) => squatter.close(r));
  }
});

test('another host given is the one bound: 127.0.0.2 listens, 127.0.0.1 on that port does not', async () => {
  const other = await freePort('127.0.0.2');
  const second = await startDynamoDbLocal({ host: '127.0.0.2', port: other }, () => undefined);
  try {
    expect(listeners().filter((l) => l.port === other).map(({ family, address }) => ({ family, address }))).toEqual([{ family: 'tcp', address: '127.0.0.2' }]);
    expect(await accepts('127.0.0.1', other)).toBe(false);
    expect(await accepts('127.0.0.2', other)).toBe(true);
  } finally {
    await second.stop();
  }
  expect(listeners().filter((l) => l.port === other)).toEqual([]);
});
