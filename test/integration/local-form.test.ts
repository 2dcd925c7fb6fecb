/**
 * The local form as a user runs it: `npm start`'s stack on the embedded store needs no Java and listens on nothing
 * but the API and SMTP ports of TEMPMAIL_HOST; in the dynamodb form the stand-ins listen on loopback only; a data
 * folder of one kind is never opened as the other; a port in use is a clear start-up error; the embedded form loads
 * no AWS SDK client.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';

interface Listener {
  address: string;
  port: number;
}

/** Every process in the tree under `pid` (the stack and any child it started). */
function processTree(pid: number): number[] {
  const children = (p: number): number[] => {
    try {
      return fs
        .readFileSync(`/proc/${p}/task/${p}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  };
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]));
  return all;
}

/** Listening TCP sockets of these processes, from /proc/net/tcp{,6} and each process's open file descriptors. */
function listeners(pids: number[]): Listener[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        const match = /^socket:\[(\d+)\]$/.exec(target);
        if (match) inodes.add(match[1]);
      } catch {
        // closed meanwhile
      }
    }
  }
  const found: Listener[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state !== '0A' || !inodes.has(inode)) continue; // 0A: LISTEN
      const [hexAddress, hexPort] = local.split(':');
      found.push({ address: decodeAddress(hexAddress), port: parseInt(hexPort, 16) });
    }
  }
  return found.sort((a, b) => a.port - b.port);
}

function decodeAddress(hex: string): string {
  if (hex.length === 8) return [0, 1, 2, 3].map((i) => parseInt(hex.slice(6 - 2 * i, 8 - 2 * i), 16)).join('.');
  if (hex === '0'.repeat(32)) return '::';
  if (hex === '0000000000000000FFFF0000' + hex.slice(24)) return `::ffff:${decodeAddress(hex.slice(24))}`;
  return hex;
}

describe('the embedded form (npm start)', () => {
  let stack: StackHandle;
  // A PATH without java (node is started by its absolute path): the embedded form must not need it.
  const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-nojava-'));

  beforeAll(async () => {
    expect(spawnSync('sh', ['-c', 'command -v java'], { env: { PATH: bare } }).status).not.toBe(0);
    stack = await startStack({ store: 'embedded', env: { PATH: bare } });
  });
  afterAll(async () => {
    await stack?.stop();
    fs.rmSync(bare, { recursive: true, force: true });
  });

  it('runs create → SMTP → read → delete with no java on PATH', async () => {
    const api = http(stack.apiUrl, stack.keys.dev);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    await sendMail(stack.smtpPort, { to: inbox.email, subject: 'no java here', text: 'code 551234' });
    const listed = await eventually(async () => {
      const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages`);
      return reply.body.messages?.length === 1 ? reply.body : null;
    }, 10_000, 'the message');
    const full = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${listed.messages[0].id}`)).body;
    expect(full.subject).toBe('no java here');
    expect(full.codes).toEqual(['551234']);
    expect((await api('DELETE', `/v1/inboxes/${inbox.id}`)).body).toEqual({ deleted: true });
    expect((await api('GET', `/v1/inboxes/${inbox.id}`)).status).toBe(404);
    expect(processTree(stack.pid())).toHaveLength(1); // one process: no stand-in started
  });

  it('listens on the API and SMTP ports of the configured host, and nothing else', () => {
    const apiPort = Number(new URL(stack.apiUrl).port);
    expect(listeners(processTree(stack.pid()))).toEqual(
      [
        { address: '127.0.0.1', port: apiPort },
        { address: '127.0.0.1', port: stack.smtpPort },
      ].sort((a, b) => a.port - b.port),
    );
  });

  it('with TEMPMAIL_HOST=0.0.0.0 listens on every interface as asked, and prints addresses a client can use', async () => {
    const open = await startStack({ store: 'embedded', env: { TEMPMAIL_HOST: '0.0.0.0' } });
    try {
      const apiPort = Number(new URL(open.apiUrl).port);
      expect(listeners(processTree(open.pid()))).toEqual(
        [
          { address: '0.0.0.0', port: apiPort },
          { address: '0.0.0.0', port: open.smtpPort },
        ].sort((a, b) => a.port - b.port),
      );
      const printed = open.output();
      expect(printed).toContain(`API       http://127.0.0.1:${apiPort}   `);
      expect(printed).toContain(`SMTP      127.0.0.1:${open.smtpPort}   `);
      expect(printed).toContain('listening on every interface (TEMPMAIL_HOST=0.0.0.0)');
      expect(printed).not.toContain('0.0.0.0:');
    } finally {
      await open.stop();
    }
  });

  it('refuses to start on a port already in use, saying so and how to choose another', async () => {
    const port = new URL(stack.apiUrl).port;
    await expect(startStack({ store: 'embedded', env: { PORT: port } })).rejects.toThrow(`API port ${port} is already in use (another TempMail stack?); choose another with PORT=`);
  });

  it('refuses to start on a data folder another running stack serves, naming it', async () => {
    await expect(startStack({ store: 'embedded', dataDir: stack.dataDir })).rejects.toThrow(
      new RegExp(`the data folder ${stack.dataDir} is in use by the stack running as process ${stack.pid()} \\(API ${stack.apiUrl}\\)`),
    );
  });
});

describe('the dynamodb form', () => {
  it('keeps DynamoDB Local and the S3 server on loopback, and will not open the data folder as embedded', async () => {
    const stack = await startStack({ store: 'dynamodb' });
    try {
      const found = listeners(processTree(stack.pid()));
      const ports = [new URL(stack.apiUrl).port, stack.smtpPort, new URL(stack.dynamoEndpoint!).port, new URL(stack.s3Endpoint!).port].map(Number);
      expect(found.map((l) => l.port).sort()).toEqual(ports.sort());
      for (const listener of found) expect(listener.address).toBe('127.0.0.1');
    } finally {
      await stack.stop();
    }
    await expect(startStack({ store: 'embedded', dataDir: stack.dataDir })).rejects.toThrow(/holds a dynamodb store, not embedded/);
  }, 120_000);
});

describe('what the embedded form loads', () => {
  /** The AWS SDK packages in Node's module cache once `entry` is loaded, as `npm start` loads it. */
  const sdkPackagesLoadedBy = (entry: string): string[] => {
    const script = `require(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(require.cache)))`;
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: path.join(__dirname, '..', '..'), encoding: 'utf8' });
    expect(run.status).toBe(0);
    const files = JSON.parse(run.stdout.trim().split('\n').pop()!) as string[];
    expect(files.some((file) => file.includes(`${path.sep}local${path.sep}`))).toBe(true); // the cache was read
    return [...new Set(files.filter((file) => file.includes('@aws-sdk')).map((file) => file.replace(/.*node_modules\/(@aws-sdk\/[^/]+).*/, '$1')))];
  };

  // The SDK clients cost about 0.3 s of start-up and 20 MB of memory that the embedded form has no use for.
  it.each([['the stack', './local/stack.ts'], ['the keys CLI', './cli/local-admin.ts']])('%s loads no AWS SDK client until the dynamodb form needs it', (_name, entry) => {
    expect(sdkPackagesLoadedBy(entry)).toEqual([]);
  });
});

describe('start-up configuration errors, as `npm start` meets them', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT: not a port number: abc (0-65535, 0 for any free port)'],
    [{ SMTP_PORT: '25.5' }, 'SMTP_PORT: not a port number: 25.5 (0-65535, 0 for any free port)'],
    [{ TEMPMAIL_PLAN_OVERRIDES: '{"dev": {' }, /^TEMPMAIL_PLAN_OVERRIDES: not valid JSON: .*position \d+/],
  ])('%j: one line naming the variable, no stack trace, exit 1, no data folder made', (setting, message) => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-config-'));
    const dataDir = path.join(parent, 'data');
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', 'local/main.ts'], {
      cwd: path.join(__dirname, '..', '..'),
      env: { ...process.env, ...setting, TEMPMAIL_DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    const line = run.stderr.trim().replace(/^local stack cannot start: /, '');
    if (typeof message === 'string') expect(line).toBe(message);
    else expect(line).toMatch(message);
    expect(fs.existsSync(dataDir)).toBe(false);
    fs.rmSync(parent, { recursive: true, force: true });
  });
});
