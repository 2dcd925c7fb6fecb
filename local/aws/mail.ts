/**
 * SES receiving for `npm run start:aws`: an SMTP server on SMTP_PORT (loopback unless TEMPMAIL_HOST says otherwise)
 * that does what the template's AWS::SES::ReceiptRule resources tell SES to do, and nothing the local stack's SMTP
 * stand-in (local/smtp.ts) adds: no inbox lookup, no quota at RCPT, since SES knows neither.
 * - A recipient is accepted when an enabled rule of the stack's rule set lists it (an address, a domain, or
 *   `.domain` for its subdomains), else refused with 550 as SES refuses mail no rule takes.
 * - For each matching rule, in the set's order, its actions run once the data is in: the S3 action writes the raw
 *   mail to the bucket under `ObjectKeyPrefix + messageId` (the object key SES uses) before the 250; the Lambda
 *   action invokes its function with the event SES sends (mail: source, destination, headers, commonHeaders;
 *   receipt: the rule's recipients, the verdicts, the action), as an Event invocation (queued, retried and
 *   dead-lettered per the function's EventInvokeConfig) or RequestResponse. A StopAction ends the rule set.
 * - Verdicts: nothing here checks SPF, DKIM or DMARC, and nothing scans, so each is GRAY (SES's "could not tell")
 *   when the rule has ScanEnabled, else DISABLED for spam and virus. A test may force them with the header
 *   `X-Local-Ses-Verdicts: virus=FAIL, spam=PASS` (start:aws only; SES has no such header).
 * - The raw mail stored and the event's headers begin with the Return-Path and Received fields SES prepends
 *   (local/trace-headers.ts).
 * SES's own limits apply: 40 MB a message (552 beyond), 50 recipients (452 beyond).
 */
import { randomBytes } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { simpleParser, type AddressObject } from 'mailparser';
import type { SMTPServer, SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import { standInSettings } from '../../lambdas/layout/stand-ins';
import type { FunctionRunner } from './functions';
import { InvokePermissions } from './invoke-permissions';
import { traceHeaders } from '../trace-headers';
import { PromptSMTPServer } from '../smtp-greeting';
import type { LocalStackModel } from './template';
import type { Dict } from './cfn-json';

/** SES's receiving limits. */
export const SES_MAX_MESSAGE_BYTES = 40 * 1024 * 1024;
export const SES_MAX_RECIPIENTS = 50;
export const VERDICT_HEADER = 'x-local-ses-verdicts';


interface RuleModel {
  logicalId: string;
  name: string;
  recipients: string[];
  scanEnabled: boolean;
  actions: Dict[];
}

export interface MailOptions {
  model: LocalStackModel;
  functions: FunctionRunner;
  s3Endpoint: string;
  host: string;
  port: number;
  log: (line: string) => void;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/** SES's recipient matching: an address exactly, a domain's addresses, or `.domain`'s subdomains. */
export function ruleMatches(recipients: string[], address: string): boolean {
  if (recipients.length === 0) return true; // a rule without recipients applies to every recipient of the verified domains
  const lower = address.toLowerCase();
  const domain = lower.split('@').pop() ?? '';
  return recipients.some((r) => {
    const entry = r.toLowerCase();
    if (entry.includes('@')) return entry === lower;
    if (entry.startsWith('.')) return domain.endsWith(entry);
    return domain === entry;
  });
}

export class TemplateMailServer {
  private readonly server: SMTPServer;
  private readonly rules: RuleModel[];
  private readonly ruleSetName: string;
  private readonly s3: S3Client;
  /** Event invocations under way (tests wait for them; stop lets them finish their attempt). */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly options: MailOptions) {
    const { model } = options;
    const sets = model.resources('AWS::SES::ReceiptRuleSet');
    if (sets.length > 1) throw new Error(`the template has ${sets.length} receipt rule sets; the local SMTP server runs one`);
    this.ruleSetName = sets.length ? String(model.ref(sets[0][0])) : '';
    // Rules in the set's order: each names the rule it comes After.
    const all = model
      .resources('AWS::SES::ReceiptRule')
      .map(([id, r]) => ({ id, p: model.resolve(r.Properties ?? {}) as Dict }))
      .filter(({ p }) => String(p.RuleSetName) === this.ruleSetName && p.Rule?.Enabled !== false);
    const ordered: typeof all = [];
    let after: string | undefined;
    while (all.length) {
      const i = all.findIndex(({ p }) => (p.After === undefined ? after === undefined : String(p.After) === after));
      const [next] = all.splice(i < 0 ? 0 : i, 1);
      ordered.push(next);
      after = String(next.p.Rule?.Name ?? next.id);
    }
    this.rules = ordered.map(({ id, p }) => ({
      logicalId: id,
      name: String(p.Rule?.Name ?? id),
      recipients: ((p.Rule?.Recipients ?? []) as unknown[]).map(String),
      scanEnabled: p.Rule?.ScanEnabled === true,
      actions: (p.Rule?.Actions ?? []) as Dict[],
    }));
    // SES tries each Lambda action's permission when the rule is created (CreateReceiptRule fails without it, and so
    // the deployment): here the start fails the same way.
    const permissions = new InvokePermissions(model);
    for (const rule of this.rules) {
      for (const action of rule.actions.filter((a) => a.LambdaAction)) {
        const fn = model.functionByArn(String(action.LambdaAction.FunctionArn));
        const sourceArn = `arn:aws:ses:${model.region}:${model.account}:receipt-rule-set/${this.ruleSetName}:receipt-rule/${rule.name}`;
        const refused = fn && permissions.refusal(fn, { principal: 'ses.amazonaws.com', sourceArn, sourceAccount: model.account });
        if (refused) throw new Error(`receipt rule ${rule.name}: InvalidLambdaFunction: Could not invoke Lambda function: ${refused}`);
      }
    }
    this.s3 = new S3Client({ forcePathStyle: true, ...standInSettings(options.s3Endpoint) });
    this.server = new PromptSMTPServer({
      name: 'inbound-smtp.local.amazonaws.com',
      banner: 'Amazon SES (template form, start:aws)',
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      disableReverseLookup: true,
      size: SES_MAX_MESSAGE_BYTES,
      logger: false,
      onRcptTo: (address: SMTPServerAddress, session: SMTPServerSession, callback: (error?: Error) => void) => {
        if (session.envelope.rcptTo.length >= SES_MAX_RECIPIENTS) return callback(smtpError(452, '4.5.3 Too many recipients'));
        if (!this.rules.some((rule) => ruleMatches(rule.recipients, address.address))) return callback(smtpError(550, '5.1.1 Requested action not taken: mailbox unavailable'));
        callback();
      },
      onData: (stream: SMTPServerDataStream, session: SMTPServerSession, callback: (error?: Error | null, message?: string) => void) => {
        this.receive(stream, session).then(
          (messageId) => callback(null, `Ok ${messageId}`),
          (error: Error & { responseCode?: number }) => {
            options.log(`[ses] mail refused: ${error.message}`);
            callback(error.responseCode ? error : smtpError(451, '4.3.0 Temporary failure; try again'));
          },
        );
      },
    });
    this.server.on('error', (error) => options.log(`[ses] ${error.message}`));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => resolve());
    });
    return (this.server.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves when every Lambda action invoked so far has finished (all attempts of Event invocations). */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private async receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    if (stream.sizeExceeded) throw smtpError(552, '5.3.4 Message too big');
    const messageId = `${Date.now().toString(36)}${randomBytes(16).toString('hex')}`.slice(0, 40);
    const recipients = session.envelope.rcptTo.map((r) => r.address);
    const source = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const received = new Date();
    // What SES prepends before it stores the mail and reads its headers (local/trace-headers.ts says which and why).
    const trace = traceHeaders({
      mailFrom: source,
      recipients,
      helo: session.hostNameAppearsAs || '',
      clientAddress: session.remoteAddress,
      by: `inbound-smtp.${this.options.model.region}.amazonaws.com`,
      protocol: 'SMTP',
      id: messageId,
      date: received,
    });
    const raw = Buffer.concat([trace, ...chunks]);
    const parsed = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true });
    const headerList = parsed.headerLines.map((h) => ({ name: h.line.slice(0, h.line.indexOf(':')), value: h.line.slice(h.line.indexOf(':') + 1).replace(/^\s+/, '').replace(/\r?\n\s*/g, ' ') }));
    const forced = Object.fromEntries(
      String(parsed.headers.get(VERDICT_HEADER) ?? '')
        .split(',')
        .map((pair) => pair.split('=').map((s) => s.trim()))
        .filter(([k, v]) => k && v)
        .map(([k, v]) => [k.toLowerCase(), { status: v.toUpperCase() }]),
    ) as Record<string, { status: string }>;
    const addresses = (a: AddressObject | AddressObject[] | undefined) => (a ? ([] as AddressObject[]).concat(a).flatMap((x) => x.value.map((v) => (v.name ? `${v.name} <${v.address}>` : String(v.address)))) : undefined);
    const timestamp = received.toISOString();
    const mail = {
      timestamp,
      source,
      messageId,
      destination: recipients,
      headersTruncated: false,
      headers: headerList,
      commonHeaders: {
        returnPath: source,
        ...(parsed.from ? { from: addresses(parsed.from) } : {}),
        ...(parsed.date ? { date: parsed.date.toUTCString() } : {}),
        ...(parsed.to ? { to: addresses(parsed.to) } : {}),
        ...(parsed.cc ? { cc: addresses(parsed.cc) } : {}),
        ...(parsed.messageId ? { messageId: parsed.messageId } : {}),
        ...(parsed.subject !== undefined ? { subject: parsed.subject } : {}),
      },
    };

    for (const rule of this.rules) {
      const matched = recipients.filter((r) => ruleMatches(rule.recipients, r));
      if (!matched.length) continue;
      const scan = rule.scanEnabled ? 'GRAY' : 'DISABLED';
      const verdicts = {
        spamVerdict: forced.spam ?? { status: scan },
        virusVerdict: forced.virus ?? { status: scan },
        spfVerdict: forced.spf ?? { status: 'GRAY' },
        dkimVerdict: forced.dkim ?? { status: 'GRAY' },
        dmarcVerdict: forced.dmarc ?? { status: 'GRAY' },
      };
      for (const action of rule.actions) {
        if (action.S3Action) {
          const key = `${action.S3Action.ObjectKeyPrefix ?? ''}${messageId}`;
          await this.s3.send(new PutObjectCommand({ Bucket: String(action.S3Action.BucketName), Key: key, Body: raw, ContentType: 'application/octet-stream' }));
        } else if (action.LambdaAction) {
          const fn = this.options.model.functionByArn(String(action.LambdaAction.FunctionArn));
          if (!fn) throw new Error(`rule ${rule.name}: its Lambda action names no function of the template`);
          const invocationType = action.LambdaAction.InvocationType === 'RequestResponse' ? 'RequestResponse' : 'Event';
          const event = {
            Records: [
              {
                eventSource: 'aws:ses',
                eventVersion: '1.0',
                ses: {
                  mail,
                  receipt: {
                    timestamp,
                    processingTimeMillis: 0,
                    recipients: matched,
                    ...verdicts,
                    action: { type: 'Lambda', functionArn: String(action.LambdaAction.FunctionArn), invocationType },
                  },
                },
              },
            ],
          };
          if (invocationType === 'RequestResponse') {
            const outcome = await this.options.functions.invoke(fn, event);
            if (outcome.ok && (outcome.payload as { disposition?: string } | null)?.disposition === 'STOP_RULE_SET') return messageId;
          } else {
            const { done } = this.options.functions.invokeAsync(fn, event);
            this.inFlight.add(done);
            void done.finally(() => this.inFlight.delete(done));
          }
        } else if (action.StopAction) {
          return messageId;
        }
      }
    }
    this.options.log(`[ses] mail ${messageId} from ${source || '<>'} to ${recipients.length} recipient(s), ${raw.length} bytes`);
    return messageId;
  }
}
