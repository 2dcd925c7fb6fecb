/**
 * `npm run bench:aws-memory`: the ingest function's peak memory for the largest mail SES accepts, an HTML mail of
 * 39.5 MB, through the template form (`npm run start:aws`: the cdk.out bundle in its own process, SES's S3 action
 * then its Lambda action), printed beside the function's MemorySize from the template. The figure is the
 * environment's peak resident memory (its process's maxRSS) that Lambda's REPORT line gives as Max Memory Used;
 * the first invocation of a fresh environment, so the figure is this mail's alone. Issue 21 fault 7 measured 683 MB
 * on an earlier build.
 */
import { eventually, sendRaw } from '../test/support/mail';
import { http } from '../test/support/http';
import { startStack } from '../test/support/stack';

const MAIL_BYTES = 39.5 * 1024 * 1024;

/** An HTML mail of `bytes`, 8bit, in lines SMTP carries (under 998 characters). */
function htmlMail(to: string, bytes: number): Buffer {
  const head = [`From: bench@example.com`, `To: ${to}`, 'Subject: 39.5 MB of HTML', 'MIME-Version: 1.0', 'Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', '<html><body>'].join('\r\n');
  const row = '<tr><td style="padding:4px">Newsletter filler row with a code 482913 and some text</td></tr>\r\n';
  const rows = Math.floor((bytes - head.length - 40) / row.length);
  return Buffer.from(`${head}\r\n<table>\r\n${row.repeat(rows)}</table></body></html>\r\n`);
}

async function main(): Promise<void> {
  const stack = await startStack({ form: 'aws-template' });
  try {
    const api = http(stack.apiUrl, stack.keys.enterprise);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    const raw = htmlMail(inbox.email, MAIL_BYTES);
    const started = Date.now();
    await sendRaw(stack.smtpPort, [inbox.email], raw);
    await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages?.length > 0, 300_000, 'the mail stored');
    const report = stack
      .output()
      .split('\n')
      .filter((line) => /\[λ \w*Ingest\w*\] REPORT /.test(line))
      .pop();
    const m = report && /Duration: (\d+) ms Memory Size: (\d+) MB Max Memory Used: (\d+) MB/.exec(report);
    if (!m) throw new Error(`no REPORT line of the ingest function in the output:\n${stack.output().slice(-3000)}`);
    console.log(`ingest (template form), one HTML mail of ${(raw.length / 1024 / 1024).toFixed(1)} MB: peak ${m[3]} MB of its ${m[2]} MB MemorySize; invocation ${m[1]} ms, stored ${Date.now() - started} ms after the send began`);
  } finally {
    await stack.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
