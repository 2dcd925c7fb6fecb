/**
 * The mail checks' sender and authentication sections (issue 25), without a stack: the pure sender rules on header
 * lists, and the mailauth adapter on real signed mail with a resolver function standing in for DNS (no test here
 * touches the internet), plus a real node resolver pointed at a closed local port: unreachable DNS is temperror.
 */
import { generateKeyPairSync } from 'node:crypto';
import dgram from 'node:dgram';
import { dkimSign } from 'mailauth/lib/dkim/sign';
import { mailAuthenticator, MAX_DNS_QUERIES } from '../../lambdas/checks/mail-auth';
import { authenticationSection } from '../../lambdas/core/checks/authentication';
import { GMAIL_CLIP_BYTES, senderSection, relaxedAligned } from '../../lambdas/core/checks/sender';
import { DISABLED_VERDICTS, type MailHeader } from '../../lambdas/core/model';

const h = (name: string, value: string): MailHeader => ({ name, value });
const result = (section: ReturnType<typeof senderSection>, id: string) => section.findings.filter((f) => f.id === id).map((f) => f.result);

describe('sender section', () => {
  const good = [
    h('From', 'Shop <news@mail.shop.example.com>'),
    h('Date', 'Thu, 26 Nov 2026 12:00:00 +0000'),
    h('Message-ID', '<abc@shop.example.com>'),
    h('List-Unsubscribe', '<mailto:u@shop.example.com>, <https://shop.example.com/u/1>'),
    h('List-Unsubscribe-Post', 'List-Unsubscribe=One-Click'),
    h('DKIM-Signature', 'v=1; a=rsa-sha256; d=example.com; s=s1; h=from:list-unsubscribe:list-unsubscribe-post; bh=x; b=y'),
  ];
  it('passes a bulk mail that does everything asked', () => {
    const section = senderSection({ headers: good, headersTruncated: false, from: 'news@mail.shop.example.com', htmlBytes: 1000 });
    expect(section.status).toBe('complete');
    expect(section.findings.map((f) => [f.id, f.result])).toEqual([
      ['list-unsubscribe', 'pass'],
      ['list-unsubscribe-post', 'pass'],
      ['list-unsubscribe-signed', 'pass'],
      ['message-id', 'pass'],
      ['date', 'pass'],
      ['gmail-clipping', 'pass'],
      ['dkim-aligned', 'pass'],
    ]);
  });
  it('fails a one-click header without an https URI, an unsigned one, and a wrong value', () => {
    const mailtoOnly = good.map((x) => (x.name === 'List-Unsubscribe' ? h(x.name, '<mailto:u@shop.example.com>') : x));
    expect(result(senderSection({ headers: mailtoOnly, headersTruncated: false, from: 'a@example.com', htmlBytes: 0 }), 'list-unsubscribe-post')).toEqual(['fail']);
    const unsigned = good.map((x) => (x.name === 'DKIM-Signature' ? h(x.name, 'v=1; d=example.com; h=from; b=y') : x));
    expect(result(senderSection({ headers: unsigned, headersTruncated: false, from: 'a@example.com', htmlBytes: 0 }), 'list-unsubscribe-signed')).toEqual(['fail']);
    const wrong = good.map((x) => (x.name === 'List-Unsubscribe-Post' ? h(x.name, 'One-Click') : x));
    expect(result(senderSection({ headers: wrong, headersTruncated: false, from: 'a@example.com', htmlBytes: 0 }), 'list-unsubscribe-post')).toEqual(['fail']);
  });
  it('fails missing Message-ID, Date and DKIM, and a Date that is not one', () => {
    const bare = senderSection({ headers: [h('From', 'a@example.com')], headersTruncated: false, from: 'a@example.com', htmlBytes: 0 });
    expect(result(bare, 'message-id')).toEqual(['fail']);
    expect(result(bare, 'date')).toEqual(['fail']);
    expect(result(bare, 'dkim-aligned')).toEqual(['fail']);
    expect(result(bare, 'list-unsubscribe')).toEqual(['warn']);
    expect(result(senderSection({ headers: [h('Date', 'yesterday')], headersTruncated: false, from: 'a@example.com', htmlBytes: 0 }), 'date')).toEqual(['fail']);
  });
  it('fails a d= of another organisation, and knows public suffixes', () => {
    const other = senderSection({ headers: [h('DKIM-Signature', 'd=esp.example.net; s=x')], headersTruncated: false, from: 'a@shop.example.com', htmlBytes: 0 });
    expect(result(other, 'dkim-aligned')).toEqual(['fail']);
    expect(relaxedAligned('mail.shop.co.uk', 'shop.co.uk')).toBe(true);
    expect(relaxedAligned('shop.co.uk', 'other.co.uk')).toBe(false);
  });
  it('measures the HTML against Gmail clipping', () => {
    const size = (n: number) => result(senderSection({ headers: [], headersTruncated: false, from: 'a@example.com', htmlBytes: n }), 'gmail-clipping')[0];
    expect(size(GMAIL_CLIP_BYTES + 1)).toBe('fail');
    expect(size(GMAIL_CLIP_BYTES - 100)).toBe('warn');
    expect(size(10)).toBe('pass');
  });
  it('is partial when the stored headers were cut', () => {
    expect(senderSection({ headers: [], headersTruncated: true, from: 'a@example.com', htmlBytes: 0 }).status).toBe('partial');
  });
});

describe('authentication through mailauth, DNS from a resolver function', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dkimKey = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const trace = 'Return-Path: <bounce@shop.example>\r\nReceived: from mx.shop.example ([192.0.2.10])\r\n by inbound-smtp.local with ESMTP id x;\r\n Thu, 26 Nov 2026 12:00:00 +0000 (UTC)\r\n';
  const body = 'From: Shop <news@shop.example>\r\nTo: t@tempmail.test\r\nSubject: hi\r\nDate: Thu, 26 Nov 2026 12:00:00 +0000\r\nMessage-ID: <1@shop.example>\r\n\r\nhello\r\n';
  const records: Record<string, string> = {
    'TXT shop.example': 'v=spf1 ip4:192.0.2.10 -all',
    'TXT _dmarc.shop.example': 'v=DMARC1; p=reject',
    'TXT s1._domainkey.shop.example': `v=DKIM1; k=rsa; p=${dkimKey}`,
  };
  const queries: string[] = [];
  const fakeDns = async (name: string, rr: string) => {
    queries.push(`${rr} ${name}`);
    const record = records[`${rr} ${name}`];
    if (record) return [[record]];
    throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
  let signed: Buffer;
  beforeAll(async () => {
    const key = { signingDomain: 'shop.example', selector: 's1', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) };
    // mailauth's README passes signatureData; its types also ask for the key's fields at the top.
    const signature = await dkimSign(body, { ...key, signatureData: [key] });
    if (signature.errors.length) throw new Error(String(signature.errors[0]));
    signed = Buffer.from(trace + signature.signatures + body);
  });
  const later = () => Date.now() + 30_000;

  it('passes SPF, DKIM and DMARC of a signed mail from an address SPF allows', async () => {
    const report = await mailAuthenticator({ resolve: fakeDns }).authenticate(signed, 'bounce@shop.example', later());
    expect(report.spf).toMatchObject({ result: 'pass', domain: 'shop.example', clientIp: '192.0.2.10' });
    expect(report.dkim).toEqual([expect.objectContaining({ result: 'pass', domain: 'shop.example', selector: 's1', aligned: true })]);
    expect(report.dmarc).toMatchObject({ result: 'pass', policy: 'reject' });
    expect(report.arc.result).toBe('none');
    expect(queries).toContain('TXT s1._domainkey.shop.example');
    const section = authenticationSection(report, null, DISABLED_VERDICTS);
    expect(section.status).toBe('complete');
    expect(section.findings.map((f) => [f.id, f.result])).toEqual([['spf', 'pass'], ['dkim', 'pass'], ['dmarc', 'pass'], ['arc', 'none']]);
  });

  it('fails DKIM of a mail changed after signing, and SPF of another client address', async () => {
    const tampered = Buffer.from(signed.toString().replace('hello', 'hullo').replace('192.0.2.10', '198.51.100.7'));
    const report = await mailAuthenticator({ resolve: fakeDns }).authenticate(tampered, 'bounce@shop.example', later());
    expect(report.spf.result).toBe('fail');
    expect(report.dkim[0].result).not.toBe('pass');
    expect(report.dmarc.result).toBe('fail');
  });

  it('answers temperror with the reason when the resolver fails', async () => {
    const down = async (name: string) => {
      throw Object.assign(new Error(`queryTxt ECONNREFUSED ${name}`), { code: 'ECONNREFUSED' });
    };
    const report = await mailAuthenticator({ resolve: down }).authenticate(signed, 'bounce@shop.example', later());
    expect(report.spf.result).toBe('temperror');
    expect(report.spf.reason).toMatch(/ECONNREFUSED/);
    expect(report.dmarc.result).toBe('temperror');
    expect(report.dkim[0].result).toBe('temperror');
  });

  it('answers temperror when a real resolver names a DNS server that does not answer', async () => {
    // A UDP socket that reads queries and never answers: the resolver waits its timeout, then gives up.
    const silent = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const server = `127.0.0.1:${silent.address().port}`;
      const report = await mailAuthenticator({ servers: [server], queryTimeoutMs: 300 }).authenticate(signed, 'bounce@shop.example', later());
      expect(report.spf.result).toBe('temperror');
      expect(report.dmarc.result).toBe('temperror');
      expect(report.dkim[0].result).toBe('temperror');
    } finally {
      silent.close();
    }
  });

  it('bounds the DNS queries of a mail with many signatures, and the time of a resolver that never answers', async () => {
    let asked = 0;
    const counting = async (name: string, rr: string) => {
      asked++;
      return fakeDns(name, rr);
    };
    const many = Buffer.from(trace + Array.from({ length: 200 }, (_, i) => `DKIM-Signature: v=1; a=rsa-sha256; d=d${i}.example; s=s; h=from; bh=x; b=y\r\n`).join('') + body);
    const report = await mailAuthenticator({ resolve: counting }).authenticate(many, 'bounce@shop.example', later());
    expect(asked).toBeLessThanOrEqual(MAX_DNS_QUERIES);
    expect(report.dkim.length).toBe(200);
    const hung = await mailAuthenticator({ resolve: () => new Promise(() => undefined), queryTimeoutMs: 60_000 }).authenticate(signed, 'bounce@shop.example', Date.now() + 200);
    expect(hung.cutShort).toMatch(/did not finish/);
    expect(authenticationSection(hung, null, DISABLED_VERDICTS).status).toBe('partial');
  });

  it('adds SES verdicts where the message carries them, and is partial without the raw mail', () => {
    const section = authenticationSection(null, 'the raw mail is no longer stored', { ...DISABLED_VERDICTS, spf: 'PASS', dkim: 'FAIL', dmarc: 'GRAY' });
    expect(section).toMatchObject({ status: 'partial', reason: 'the raw mail is no longer stored' });
    expect(section.findings.map((f) => [f.id, f.result])).toEqual([['ses-spf', 'pass'], ['ses-dkim', 'fail'], ['ses-dmarc', 'neutral']]);
  });
});
