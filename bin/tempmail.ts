/**
 * `tempmail`: the local stack (`serve`, what `npm start` runs), key administration (and, for a deployed stack,
 * dead-letter replay).
 *   tempmail serve
 *   tempmail keys create --plan <plan> [--json] [--stack NAME [--region R]]
 *   tempmail keys list [--json] [--stack NAME [--region R]]
 *   tempmail keys revoke <key or key hash> [--stack NAME [--region R]]
 *   tempmail replay --stack NAME [--region R]
 *   tempmail env        (the running stack's PORT, SMTP_PORT and KEY, for `eval "$(npx tempmail env)"`)
 *   tempmail help [command], tempmail <command> --help, tempmail --version
 * Without --stack it works on the local stack's data (TEMPMAIL_DATA_DIR, default .tempmail), running or not.
 *
 * Each command's options and environment are stated once, in COMMANDS: its help text and the option check are made
 * from them, so `--help` cannot drift from what the command accepts. Options are parsed loosely (parseArgs with
 * strict: false) and checked here, so a mistake gives one line naming the option rather than Node's parser text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { dataDirFromEnv, quietLibraries } from '../lambdas/config/process-env';
import { isPlanName, PLAN_NAMES } from '../lambdas/core/plans';
import type { ApiKeyRecord } from '../lambdas/core/model';
import { issueKey, listKeys, revokeKey } from '../lambdas/usecases/keys';
import { defaultDataDir, withLocalKeys, type LocalTarget } from '../cli/local-admin';
import { runningStackFolder, runningTemplateForm, useTemplateForm } from '../cli/template-form';
import { devKeyFile } from '../local/config';
import { runningStackOf } from '../local/stack';
import { DEFAULT_TEMPLATE_DATA_DIR } from '../local/aws/template';

interface OptionSpec {
  type: 'string' | 'boolean';
  /** How the option is written in help, e.g. `--stack NAME`. */
  usage: string;
  help: string;
}

const OPTIONS = {
  plan: { type: 'string', usage: `--plan <${PLAN_NAMES.join('|')}>`, help: "the key's plan (required)" },
  json: { type: 'boolean', usage: '--json', help: 'print JSON instead of text' },
  stack: { type: 'string', usage: '--stack NAME', help: 'work on the deployed CloudFormation stack NAME, not the local data folder' },
  region: { type: 'string', usage: '--region R', help: "the stack's AWS region (with --stack; default AWS_REGION or the profile's region)" },
  help: { type: 'boolean', usage: '-h, --help', help: 'show this help' },
} satisfies Record<string, OptionSpec>;
type OptionName = keyof typeof OPTIONS;

const ENVIRONMENT = {
  serve: ['PORT, SMTP_PORT, …', "the local stack's settings (TEMPMAIL_* too), as npm start reads them: README, Configuration"],
  local: ['TEMPMAIL_DATA_DIR', 'the local data folder, used without --stack (default: .tempmail here or in the nearest folder above that has one)'],
  aws: ['AWS_REGION, AWS_PROFILE', 'with --stack: the region (--region overrides it) and the credentials, as the AWS CLI reads them'],
} as const;

interface CommandSpec {
  name: string;
  /** Positional argument after the name, if any, as help shows it. */
  argument?: string;
  summary: string;
  options: OptionName[];
  environment: (keyof typeof ENVIRONMENT)[];
}

const COMMANDS: CommandSpec[] = [
  { name: 'serve', summary: 'run the local stack in the foreground, as npm start does: API, SMTP and viewer until Ctrl-C', options: [], environment: ['serve', 'local'] },
  { name: 'keys create', summary: 'make an API key (a new account) and print it; only its SHA-256 is stored', options: ['plan', 'json', 'stack', 'region'], environment: ['local', 'aws'] },
  { name: 'keys list', summary: 'list keys by hint and hash (never the keys)', options: ['json', 'stack', 'region'], environment: ['local', 'aws'] },
  { name: 'keys revoke', argument: '<key or key hash>', summary: 'revoke a key; it stops working within 60 s (the gateway caches a key\'s answer that long)', options: ['stack', 'region'], environment: ['local', 'aws'] },
  { name: 'replay', summary: "re-drive a deployed stack's ingest dead-letter queue (--stack required)", options: ['stack', 'region'], environment: ['aws'] },
  {
    name: 'env',
    summary: 'print the running stack\'s PORT, SMTP_PORT and dev KEY as shell assignments (eval "$(npx tempmail env)"): npm start\'s, else npm run start:aws\'s',
    options: [],
    environment: ['local'],
  },
  { name: 'help', argument: '[command]', summary: 'show the usage, or one command\'s options and environment', options: [], environment: [] },
];

const synopsis = (c: CommandSpec) =>
  ['tempmail', c.name, c.argument, ...c.options.map((o) => (o === 'plan' || (c.name === 'replay' && o === 'stack') ? OPTIONS[o].usage : `[${OPTIONS[o].usage}]`))].filter(Boolean).join(' ');

const USAGE = `usage:
${COMMANDS.map((c) => `  ${synopsis(c)}`).join('\n')}
  tempmail <command> --help       that command's options and environment
  tempmail --version
environment:
${Object.values(ENVIRONMENT).map(([name, help]) => `  ${name.padEnd(24)} ${help}`).join('\n')}`;

function commandHelp(c: CommandSpec): string {
  const listed = [...c.options, 'help' as const];
  const width = Math.max(...listed.map((o) => OPTIONS[o].usage.length));
  const options = listed.map((o) => `  ${OPTIONS[o].usage.padEnd(width)}  ${OPTIONS[o].help}`);
  const env = c.environment.map((e) => `  ${ENVIRONMENT[e][0].padEnd(24)} ${ENVIRONMENT[e][1]}`);
  return [`usage: ${synopsis(c)}`, `  ${c.summary}`, 'options:', ...options, ...(env.length ? ['environment:', ...env] : [])].join('\n');
}

/** The commands under a group word (`keys` → keys create, keys list, keys revoke). */
const groupOf = (word: string) => COMMANDS.filter((c) => c.name.startsWith(`${word} `));
const COMMAND_NAMES = COMMANDS.map((c) => c.name).join(', ');

/** A mistake in how the command was called: one line, then exit 2 (as git's and npm's are). */
class UsageError extends Error {}

/** Which command the words name: the longest command name the positionals start with. */
function findCommand(positionals: string[]): { command: CommandSpec; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = positionals.slice(0, words).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: positionals.slice(words) };
  }
  return undefined;
}

function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** Which data the command used, on stderr (stdout carries only the result, so `KEY=$(tempmail keys create …)` works). */
function said(target: LocalTarget): void {
  const state = target.running ? 'running stack' : 'stack not running';
  console.error(`tempmail: ${target.kind} data folder ${target.dataDir} (${state})`);
  if (!target.existed) console.error(`tempmail: warning: ${target.dataDir} held no TempMail data (made now); is TEMPMAIL_DATA_DIR right?`);
}

const describe = (k: ApiKeyRecord) =>
  `${k.hint}  plan=${k.plan}  account=${k.account_id}  created=${k.created_at}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ''}  hash=${k.key_hash}`;

/** The command the words name, or the help a `help …` or `<group> --help` asks for; unknown words are a UsageError. */
function resolve(positionals: string[], wantsHelp: boolean): { command: CommandSpec; rest: string[] } | { help: string } {
  const asked = positionals[0] === 'help' ? positionals.slice(1) : positionals;
  const helping = wantsHelp || positionals[0] === 'help';
  if (asked.length === 0) return { help: USAGE };
  const found = findCommand(asked);
  if (found && helping) return { help: commandHelp(found.command) };
  if (found) return found;
  const group = asked.length === 1 ? groupOf(asked[0]) : [];
  if (group.length && helping) return { help: group.map(commandHelp).join('\n\n') };
  if (group.length) throw new UsageError(`${asked[0]} needs a command: ${group.map((c) => c.name).join(', ')}`);
  throw new UsageError(`unknown command: ${asked.join(' ')} (commands: ${COMMAND_NAMES})`);
}

/** Each option given must be one the command takes, with a value if it takes one. */
function checkOptions(command: CommandSpec, tokens: NonNullable<ReturnType<typeof parseArgs>['tokens']>): void {
  const accepted = [...command.options, 'help'] as OptionName[];
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const spec = (OPTIONS as Record<string, OptionSpec>)[token.name];
    if (!spec || !accepted.includes(token.name as OptionName)) {
      throw new UsageError(`unknown option ${token.rawName} for ${command.name} (its options: ${accepted.map((o) => `--${o}`).join(', ')})`);
    }
    // Loosely parsed, `--plan --json` would take --json as the plan.
    if (spec.type === 'string' && (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))) throw new UsageError(`${token.rawName} needs a value (${spec.usage})`);
    if (spec.type === 'boolean' && token.inlineValue) throw new UsageError(`${token.rawName} takes no value`);
  }
}

/** A value as one shell word, whatever it holds. */
const shellWord = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * `tempmail env`: where the running stack listens and its dev key, as `NAME=value` lines for a shell's eval, from the
 * folder of whichever form runs (cli/template-form.ts runningStackFolder): both write stack.json and dev-key there.
 */
function printEnv(dataDir: string, dataDirGiven: boolean): void {
  const folder = runningStackFolder(dataDir, dataDirGiven);
  if (!folder) {
    console.error(`tempmail: no stack is running on ${dataDir}${dataDirGiven ? '' : ` or ${path.resolve(DEFAULT_TEMPLATE_DATA_DIR)}`}: start one with npm start or npm run start:aws`);
    process.exitCode = 1;
    return;
  }
  const state = runningStackOf(folder)!;
  const lines = [`PORT=${shellWord(new URL(state.apiUrl).port)}`, `SMTP_PORT=${shellWord(String(state.smtpPort))}`];
  const keyFile = devKeyFile(folder);
  if (fs.existsSync(keyFile)) lines.push(`KEY=${shellWord(fs.readFileSync(keyFile, 'utf8').trim())}`);
  else console.error(`tempmail: ${keyFile} does not exist (TEMPMAIL_NO_DEV_KEY=1?): KEY is not set; make one with tempmail keys create`);
  console.error(`tempmail: the stack of ${folder} (process ${state.pid})`);
  console.log(lines.join('\n'));
}

async function main(argv: string[]): Promise<void> {
  quietLibraries();
  const parsed = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    tokens: true,
    options: { ...Object.fromEntries(Object.entries(OPTIONS).map(([name, o]) => [name, { type: o.type }])), help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } },
  });
  const { positionals, tokens } = parsed;
  const values = parsed.values as { [K in OptionName]?: K extends 'json' | 'help' ? boolean : string } & { version?: boolean };
  const stray = positionals.length === 0 && tokens.find((t) => t.kind === 'option' && t.name !== 'help' && t.name !== 'version');
  if (stray && stray.kind === 'option') throw new UsageError(`unknown option ${stray.rawName} before a command (commands: ${COMMAND_NAMES})`);
  if (values.version && positionals.length === 0) {
    console.log(packageVersion());
    return;
  }
  // No command is a usage error, as git's and npm's are (a script calling us with an empty variable should fail).
  if (positionals.length === 0 && !values.help) {
    console.error(`tempmail: a command is needed\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const resolved = resolve(positionals, values.help === true);
  if ('help' in resolved) {
    console.log(resolved.help);
    return;
  }
  const { command, rest } = resolved;
  checkOptions(command, tokens);
  if (rest.length > (command.argument ? 1 : 0)) throw new UsageError(`${command.name}: unexpected argument ${rest[command.argument ? 1 : 0]}`);
  const arg = rest[0];
  if (command.name === 'serve') {
    // Required, not imported: the key commands never load the stack's servers.
    (require('../local/serve') as typeof import('../local/serve')).serve();
    return;
  }
  const givenDataDir = dataDirFromEnv();
  const dataDir = givenDataDir ?? defaultDataDir();
  if (command.name === 'env') {
    printEnv(dataDir, givenDataDir !== undefined);
    return;
  }
  // A running template form (npm run start:aws) is the deployed stack's path on local endpoints: without --stack
  // when no local stack runs on the data folder, with --stack when it runs a stack of that name.
  const template = runningTemplateForm(dataDir, givenDataDir !== undefined, values.stack);
  if (template) {
    await useTemplateForm(template);
    // The one target line (the --stack path below says `stack NAME` only when it is AWS itself).
    console.error(`tempmail: stack ${template.stackName} of the template form (npm run start:aws, process ${template.pid})`);
  }
  const stack = values.stack ?? template?.stackName;
  // The AWS side loads only when asked for, so the local path never needs AWS credentials. A require, not import():
  // the bin runs under tsx's require hook (cli/bin/tempmail.js), and Node's import() does not go through it.
  const aws = stack ? (require('../cli/aws-admin') as typeof import('../cli/aws-admin')) : undefined;
  const ref = { stackName: stack ?? '', region: values.region };

  if (command.name === 'keys create') {
    if (values.plan === undefined) throw new UsageError(`--plan is required: one of ${PLAN_NAMES.join(', ')}`);
    if (!isPlanName(values.plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}, not "${values.plan}"`);
    const plan = values.plan;
    const issued = aws
      ? await aws.createKeyOnAws({ ...ref, plan })
      : await withLocalKeys(dataDir, true, (ctx, target) => (said(target), issueKey(ctx, plan)));
    if (aws && !template) console.error(`tempmail: stack ${stack}`);
    if (values.json) console.log(JSON.stringify({ key: issued.key, plan, account_id: issued.record.account_id, created_at: issued.record.created_at }));
    else {
      console.log(issued.key);
      console.error(`(plan ${plan}, account ${issued.record.account_id}; the key is shown only now)`);
    }
    return;
  }
  if (command.name === 'keys list') {
    const keys = aws ? await aws.listKeysOnAws(ref) : await withLocalKeys(dataDir, false, (ctx, target) => (said(target), listKeys(ctx)));
    if (aws && !template) console.error(`tempmail: stack ${stack}`);
    if (values.json) console.log(JSON.stringify(keys.map(({ key_hash, hint, plan, account_id, created_at, revoked_at }) => ({ key_hash, hint, plan, account_id, created_at, revoked_at: revoked_at ?? null }))));
    else console.log(keys.length ? keys.map(describe).join('\n') : 'no keys');
    return;
  }
  if (command.name === 'keys revoke') {
    if (!arg) throw new UsageError('keys revoke needs the key (or its hash from keys list)');
    const revoked = aws ? await aws.revokeKeyOnAws({ ...ref, key: arg }) : await withLocalKeys(dataDir, false, (ctx, target) => (said(target), revokeKey(ctx, arg)));
    if (aws && !template) console.error(`tempmail: stack ${stack}`);
    if (!revoked) {
      console.error('no such key');
      process.exitCode = 1;
      return;
    }
    console.log(`revoked ${'record' in revoked ? revoked.record.hint : revoked.hint}`);
    return;
  }
  if (command.name === 'replay') {
    if (!aws) throw new UsageError('replay needs --stack NAME (locally, accepted mail is retried by the stack itself)');
    console.log(JSON.stringify(await aws.replayDeadLetters(ref)));
    return;
  }
  // `help` was answered by resolve(); every other name in COMMANDS has its branch above.
  throw new Error(`no handler for ${command.name}`);
}

main(process.argv.slice(2)).catch((error) => {
  if (error instanceof UsageError) {
    console.error(`tempmail: ${error.message}; see tempmail --help`);
    process.exit(2);
  }
  console.error(`tempmail: ${(error as Error).message}`);
  process.exit(1);
});
