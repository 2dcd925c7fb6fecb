/**
 * start:aws runs cdk.out only when its own synth wrote it (local/aws/template.ts): a `cdk synth` run since — one that
 * failed on cdk.json's example domains leaves a template with no resources — must make it synthesize again, not
 * crash on "the template has no resource" or run another stack without saying so.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stampMismatch, synthStamp } from '../../local/aws/template';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-stamp-'));
const file = path.join(dir, 'TempMail.template.json');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('takes the template its own synth wrote, for the same domains', () => {
  fs.writeFileSync(file, JSON.stringify({ Resources: { Table: { Type: 'AWS::DynamoDB::Table' } } }));
  const stamp = synthStamp(['tempmail.local'], file);
  expect(stampMismatch(stamp, ['tempmail.local'], file)).toBeUndefined();
});

it('refuses a template written since by another synth, or made for other domains, or with no stamp', () => {
  fs.writeFileSync(file, JSON.stringify({ Resources: { Table: { Type: 'AWS::DynamoDB::Table' } } }));
  const stamp = synthStamp(['tempmail.local'], file);
  expect(stampMismatch(stamp, ['other.test'], file)).toMatch(/other domains/);
  fs.writeFileSync(file, JSON.stringify({ Resources: { CDKMetadata: { Type: 'AWS::CDK::Metadata' } } }));
  expect(stampMismatch(stamp, ['tempmail.local'], file)).toMatch(/another synth/);
  expect(stampMismatch(undefined, undefined, file)).toMatch(/another synth/);
  expect(stampMismatch('not json', undefined, file)).toMatch(/another synth/);
});

it('synthesizes again for another TEMPMAIL_CHECK_DNS (tempmail:checkDns sets the checks function\'s DNS)', () => {
  fs.writeFileSync(file, JSON.stringify({ Resources: { Table: { Type: 'AWS::DynamoDB::Table' } } }));
  const stamp = synthStamp(['tempmail.local'], file, '127.0.0.1:1');
  expect(stampMismatch(stamp, ['tempmail.local'], file, '127.0.0.1:1')).toBeUndefined();
  expect(stampMismatch(stamp, ['tempmail.local'], file)).toMatch(/another TEMPMAIL_CHECK_DNS/);
  expect(stampMismatch(synthStamp(['tempmail.local'], file), ['tempmail.local'], file, '127.0.0.1:1')).toMatch(/another TEMPMAIL_CHECK_DNS/);
});
