/**
 * `tempmail`: key administration (and, for a deployed stack, dead-letter replay).
 *   tempmail keys create --plan <plan> [--json] [--stack NAME]
 *   tempmail keys list [--json] [--stack NAME]
 *   tempmail keys revoke <key or key hash> [--stack NAME]
 * Without --stack it works on the local stack's data (TEMPMAIL_DATA_DIR, default .tempmail), running or not.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isPlanName, PLAN_NAMES } from '../lambdas/core/plans';
import type { ApiKeyRecord } from '../lambdas/core/model';
import { issueKey, listKeys, revokeKey } from '../lambdas/usecases/keys';
import { withLocalKeys, type LocalTarget } from '../cli/local-admin';
import { runningTemplateForm, useTemplateForm } from '../cli/template-form';

const USAGE = `usage:
  tempmail keys create --plan <${PLAN_NAMES.join('|')}> [--json] [--stack NAME]
  tempmail keys list [--json] [--stack NAME]
  tempmail keys revoke <key or key hash> [--stack NAME]
  tempmail replay --stack NAME`;

class UsageError extends Error {}

/** Which data the command used, on stderr (stdout carries only the result, so `KEY=$(tempmail keys create …)` works). */
function said(target: LocalTarget): void {
  const state = target.running ? 'running stack' : 'stack not running';
  console.error(`tempmail: ${target.kind} data folder ${target.dataDir} (${state})`);
  if (!target.existed) console.error(`tempmail: warning: ${target.dataDir} held no TempMail data (made now); is TEMPMAIL_DATA_DIR right?`);
}

const describe = (k: ApiKeyRecord) =>
  `${k.hint}  plan=${k.plan}  account=${k.account_id}  created=${k.created_at}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ''}  hash=${k.key_hash}`;

async function main(argv: string[]): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { plan: { type: 'string' }, json: { type: 'boolean' }, stack: { type: 'string' }, region: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [group, command, arg] = positionals;
  if (values.help) {
    console.log(USAGE);
    return;
  }
  // No command is a usage error, as git's and npm's are (a script calling us with an empty variable should fail).
  if (!group) throw new UsageError('a command is needed');
  const dataDir = path.resolve(process.env.TEMPMAIL_DATA_DIR || '.tempmail');
  // A running template form (npm run start:aws) is the deployed stack's path on local endpoints: without --stack
  // when no local stack runs on the data folder, with --stack when it runs a stack of that name.
  const template = runningTemplateForm(dataDir, Boolean(process.env.TEMPMAIL_DATA_DIR), values.stack);
  if (template) {
    await useTemplateForm(template);
    console.error(`tempmail: stack ${template.stackName} of the template form (npm run start:aws, process ${template.pid})`);
  }
  const stack = values.stack ?? template?.stackName;
  // The AWS side loads only when asked for, so the local path never needs AWS credentials. A require, not import():
  // the bin runs under tsx's require hook (cli/bin/tempmail.js), and Node's import() does not go through it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const aws = stack ? (require('../cli/aws-admin') as typeof import('../cli/aws-admin')) : undefined;
  const ref = { stackName: stack ?? '', region: values.region };

  if (group === 'keys' && command === 'create') {
    if (!isPlanName(values.plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
    const plan = values.plan;
    const issued = aws
      ? await aws.createKeyOnAws({ ...ref, plan })
      : await withLocalKeys(dataDir, true, (ctx, target) => (said(target), issueKey(ctx, plan)));
    if (aws) console.error(`tempmail: stack ${stack}`);
    if (values.json) console.log(JSON.stringify({ key: issued.key, plan, account_id: issued.record.account_id, created_at: issued.record.created_at }));
    else {
      console.log(issued.key);
      console.error(`(plan ${plan}, account ${issued.record.account_id}; the key is shown only now)`);
    }
    return;
  }
  if (group === 'keys' && command === 'list') {
    const keys = aws ? await aws.listKeysOnAws(ref) : await withLocalKeys(dataDir, false, (ctx, target) => (said(target), listKeys(ctx)));
    if (aws) console.error(`tempmail: stack ${stack}`);
    if (values.json) console.log(JSON.stringify(keys.map(({ key_hash, hint, plan, account_id, created_at, revoked_at }) => ({ key_hash, hint, plan, account_id, created_at, revoked_at: revoked_at ?? null }))));
    else console.log(keys.length ? keys.map(describe).join('\n') : 'no keys');
    return;
  }
  if (group === 'keys' && command === 'revoke') {
    if (!arg) throw new UsageError('keys revoke needs the key (or its hash from keys list)');
    const revoked = aws ? await aws.revokeKeyOnAws({ ...ref, key: arg }) : await withLocalKeys(dataDir, false, (ctx, target) => (said(target), revokeKey(ctx, arg)));
    if (aws) console.error(`tempmail: stack ${stack}`);
    if (!revoked) {
      console.error('no such key');
      process.exitCode = 1;
      return;
    }
    console.log(`revoked ${'record' in revoked ? revoked.record.hint : revoked.hint}`);
    return;
  }
  if (group === 'replay') {
    if (!aws) throw new UsageError('replay needs --stack NAME (locally, accepted mail is retried by the stack itself)');
    console.log(JSON.stringify(await aws.replayDeadLetters(ref)));
    return;
  }
  throw new UsageError(`unknown command: ${positionals.join(' ')}`);
}

main(process.argv.slice(2)).catch((error) => {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(`tempmail: ${(error as Error).message}`);
  process.exit(1);
});
