/**
 * The IAM gate (local/aws/iam) with real parts: the synthesized template's policies, its own DynamoDB Local and S3
 * server, and the AWS SDK v3 clients a function uses, signed with that function's access key id and pointed at the
 * proxy. One copy of the template has one action removed from one function (as a hand edit would), to show the
 * call that needs it denied the way AWS denies it. The synth, the stand-ins and the clients: test/support/iam-gate-fixture.ts.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { GetItemCommand, PutItemCommand, QueryCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { CopyObjectCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ACCOUNT_INDEX } from '../../lambdas/layout/table-layout';
import { accessKeyIdFor, createIamGate, explainUnused, startIamProxy, templateReasons, UNUSED_GRANT_REASONS, unusedGrants, writeEvidence, type CfnTemplate } from '../../local/aws/iam';
import { ACCOUNT, BUCKET, clientsOf, fnId, grantsOf, iamGateFixture, idOfType, item, REGION, TABLE, without } from '../support/iam-gate-fixture';

jest.setTimeout(180_000);

const fixture = iamGateFixture();
const { gateFor, direct } = fixture;
let template: CfnTemplate;
beforeAll(() => {
  template = fixture.template();
});

describe('the synthesized template', () => {
  it('forwards a call its function is granted, and records it as evidence', async () => {
    const { gate, proxy } = await gateFor(template);
    const fn = fnId(template, 'CreateInboxFunction');
    await clientsOf(proxy, fn).db.send(new PutItemCommand({ TableName: TABLE, Item: { ...item('iam#allowed'), note: { S: 'through the gate' } } }));
    const stored = await direct().db.send(new GetItemCommand({ TableName: TABLE, Key: item('iam#allowed') }));
    expect(stored.Item?.note?.S).toBe('through the gate');
    expect(proxy.denied).toEqual([]);
    const tableArn = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`;
    expect(gate.evidence.calls()).toEqual([expect.objectContaining({ functionLogicalId: fn, action: 'dynamodb:PutItem', resource: tableArn })]);
    // The evidence against the grants: every grant of CreateInbox's role is listed as unused but PutItem on the table.
    const unused = unusedGrants(template, gate.evidence.calls(), gate.resolve).filter((u) => u.functionLogicalId === fn);
    const granted = grantsOf(gate, fn);
    expect(granted).toContain(`dynamodb:PutItem ${tableArn}`);
    expect(unused.map((u) => `${u.action} ${u.resource}`).sort()).toEqual(granted.filter((g) => g !== `dynamodb:PutItem ${tableArn}`).sort());
  });

  it('denies a function without a grant with AccessDeniedException, as DynamoDB does, and logs it', async () => {
    const { proxy, lines } = await gateFor(template);
    const fn = fnId(template, 'GetInboxFunction'); // table:read: no PutItem
    const error = await clientsOf(proxy, fn).db.send(new PutItemCommand({ TableName: TABLE, Item: item('iam#read-only') })).catch((e: Error) => e);
    expect((error as Error).name).toBe('AccessDeniedException');
    expect((error as Error).message).toMatch(/is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table\//);
    expect((await direct().db.send(new GetItemCommand({ TableName: TABLE, Key: item('iam#read-only') }))).Item).toBeUndefined();
    expect(lines.join('\n')).toContain(`denied ${fn} dynamodb:PutItem on arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`);
  });

  it('checks a Query on an index against the index ARN', async () => {
    const { gate, proxy } = await gateFor(template);
    const fn = fnId(template, 'ListInboxesFunction');
    await clientsOf(proxy, fn).db.send(
      new QueryCommand({ TableName: TABLE, IndexName: ACCOUNT_INDEX.name, KeyConditionExpression: `${ACCOUNT_INDEX.partitionKey} = :a`, ExpressionAttributeValues: { ':a': { S: 'nobody' } } }),
    );
    expect(gate.evidence.calls().map((c) => c.resource)).toEqual([`arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}/index/${ACCOUNT_INDEX.name}`]);
  });

  it('refuses an access key id that belongs to no function', async () => {
    const { proxy } = await gateFor(template);
    const error = await clientsOf(proxy, 'NotAFunctionOfThisTemplate').db.send(new GetItemCommand({ TableName: TABLE, Key: item('x') })).catch((e: Error) => e);
    expect((error as Error).name).toBe('UnrecognizedClientException');
  });

  it('denies an object read outside the granted prefix, and a listing of another prefix', async () => {
    const { proxy } = await gateFor(template);
    await direct().s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/raw-1', Body: 'raw mail' }));
    await direct().s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i1/m1.eml', Body: 'stored mail' }));
    const { s3 } = clientsOf(proxy, fnId(template, 'GetRawMessageFunction')); // s3:GetObject and ListBucket on inboxes/ only
    const body = await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i1/m1.eml' }))).Body!.transformToString();
    expect(body).toBe('stored mail');
    const read = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/raw-1' })).catch((e: Error) => e);
    expect((read as Error).name).toBe('AccessDenied');
    expect((read as Error).message).toContain('s3:GetObject');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'inboxes/i1/' }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual(['inboxes/i1/m1.eml']);
    const other = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'inbound/' })).catch((e: Error) => e);
    expect((other as Error).name).toBe('AccessDenied');
    const all = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET })).catch((e: Error) => e);
    expect((all as Error).name).toBe('AccessDenied');
  });

  it('evaluates a presigned GET as the function that signed it', async () => {
    const { proxy } = await gateFor(template);
    await direct().s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i2/att.bin', Body: 'attachment' }));
    const command = new GetObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i2/att.bin' });
    const granted = await getSignedUrl(clientsOf(proxy, fnId(template, 'GetMessageFunction')).s3, command, { expiresIn: 60 });
    const ok = await fetch(granted);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('attachment');
    const ungranted = await getSignedUrl(clientsOf(proxy, fnId(template, 'ListDomainsFunction')).s3, command, { expiresIn: 60 });
    const refused = await fetch(ungranted);
    expect(refused.status).toBe(403);
    const xml = await refused.text();
    expect(xml).toContain('<Code>AccessDenied</Code>');
    expect(xml).toContain(`is not authorized to perform: s3:GetObject on resource: arn:aws:s3:::${BUCKET}/inboxes/i2/att.bin`);
  });

  it('deletes the granted keys of a multi-object delete and reports the others as AccessDenied', async () => {
    const { proxy } = await gateFor(template);
    await direct().s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i3/m.eml', Body: 'a' }));
    await direct().s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/keep', Body: 'b' }));
    const { s3 } = clientsOf(proxy, fnId(template, 'DeleteInboxFunction')); // s3:DeleteObject on inboxes/ only
    const result = await s3.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: [{ Key: 'inboxes/i3/m.eml' }, { Key: 'inbound/keep' }] } }));
    expect(result.Deleted?.map((d) => d.Key)).toEqual(['inboxes/i3/m.eml']);
    expect(result.Errors).toEqual([expect.objectContaining({ Key: 'inbound/keep', Code: 'AccessDenied' })]);
    const kept = await direct().s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inbound/keep' }));
    expect(await kept.Body!.transformToString()).toBe('b');
    const gone = await direct().s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i3/m.eml' })).catch((e: Error) => e);
    expect((gone as Error).name).toBe('NoSuchKey');
  });

  it('checks a copy against s3:GetObject on its source too', async () => {
    const { gate, proxy } = await gateFor(template);
    await direct().s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbound/raw-2', Body: 'copied' }));
    const fn = fnId(template, 'Ingest');
    await clientsOf(proxy, fn).s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i4/raw.eml', CopySource: `${BUCKET}/inbound/raw-2` }));
    const copied = await direct().s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i4/raw.eml' }));
    expect(await copied.Body!.transformToString()).toBe('copied');
    expect(gate.evidence.calls().map((c) => `${c.action} ${c.resource}`).sort()).toEqual([
      `s3:GetObject arn:aws:s3:::${BUCKET}/inbound/raw-2`,
      `s3:PutObject arn:aws:s3:::${BUCKET}/inboxes/i4/raw.eml`,
    ]);
  });

  it('streams a large object both ways unchanged', async () => {
    const { proxy } = await gateFor(template);
    const big = Buffer.alloc(24 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
    const fn = fnId(template, 'Ingest');
    await clientsOf(proxy, fn).s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i5/big.bin', Body: big }));
    const back = await clientsOf(proxy, fn).s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inboxes/i5/big.bin' }));
    const bytes = Buffer.from(await back.Body!.transformToByteArray());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(big).digest('hex'));
  });
});

describe('resource policies of the template', () => {
  it("applies the bucket policy: an explicit Deny there refuses what the role's policy allows", async () => {
    const edited = JSON.parse(JSON.stringify(template)) as CfnTemplate;
    const bucketPolicy = Object.values(edited.Resources).find((r) => r.Type === 'AWS::S3::BucketPolicy' && JSON.stringify(r.Properties!.Bucket).includes('StorageMail'))!;
    const bucketId = idOfType(edited, 'AWS::S3::Bucket', /^TempMailStorageMail[0-9A-F]{8}$/);
    bucketPolicy.Properties!.PolicyDocument.Statement.push({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:GetObject',
      Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/inboxes/held/*']] },
    });
    const { proxy } = await gateFor(edited);
    await direct().s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inboxes/held/m.eml', Body: 'held' }));
    await direct().s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inboxes/free/m.eml', Body: 'free' }));
    const { s3 } = clientsOf(proxy, fnId(edited, 'GetMessageFunction'));
    const held = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inboxes/held/m.eml' })).catch((e: Error) => e);
    expect((held as Error).name).toBe('AccessDenied');
    expect((held as Error).message).toContain('with an explicit deny in a resource-based policy');
    expect(await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'inboxes/free/m.eml' }))).Body!.transformToString()).toBe('free');
  });

  it("applies the key policy: KMS use needs the key policy to let the account's IAM policies grant it", async () => {
    const keyId = idOfType(template, 'AWS::KMS::Key', /^TempMailWebhooksSecretsKey[0-9A-F]{8}$/);
    const fn = fnId(template, 'CreateWebhookFunction');
    const real = createIamGate({ template, region: REGION, accountId: ACCOUNT });
    const encrypt = { functionLogicalId: fn, action: 'kms:Encrypt', resource: real.resolve(keyId, 'Arn') };
    expect(await real.evaluate(encrypt)).toEqual(expect.objectContaining({ allowed: true }));
    expect(await real.evaluate({ ...encrypt, action: 'kms:Decrypt' })).toEqual(expect.objectContaining({ allowed: false }));
    // A key policy that names another account only: the role's own grant is no longer enough, as on AWS.
    const edited = JSON.parse(JSON.stringify(template)) as CfnTemplate;
    edited.Resources[keyId].Properties!.KeyPolicy.Statement[0].Principal = { AWS: 'arn:aws:iam::999999999999:root' };
    const locked = createIamGate({ template: edited, region: REGION, accountId: ACCOUNT });
    expect(await locked.evaluate(encrypt)).toEqual(expect.objectContaining({ allowed: false }));
  });
});

describe('the unused-grant report', () => {
  it('has each written reason match a grant of the synthesized template (no reason outlives its grant)', () => {
    const gate = createIamGate({ template, region: REGION, accountId: ACCOUNT });
    const everything = unusedGrants(template, [], gate.resolve); // no calls: every grant unused
    const reasons = [...UNUSED_GRANT_REASONS, ...templateReasons(template, gate.resolve)];
    expect(reasons.length).toBeGreaterThan(UNUSED_GRANT_REASONS.length); // the stream, queue and destinations of the stack
    for (const reason of reasons) {
      const { explained } = explainUnused(everything, [reason]);
      expect({ reason: reason.reason, matched: explained.length > 0 }).toEqual({ reason: reason.reason, matched: true });
    }
  });

  it("lists, from a run's evidence file, the grants no call used: reasoned, or EXCESS with exit code 1", async () => {
    // One grant added by hand that no code calls (Scan), so that the report has an excess to find.
    const fn = fnId(template, 'GetInboxFunction');
    const edited = JSON.parse(JSON.stringify(template)) as CfnTemplate;
    const role = edited.Resources[fn].Properties!.Role['Fn::GetAtt'][0];
    const policy = Object.values(edited.Resources).find((r) => r.Type === 'AWS::IAM::Policy' && r.Properties!.Roles.some((x: { Ref: string }) => x.Ref === role))!;
    const tableId = idOfType(edited, 'AWS::DynamoDB::GlobalTable', /^TempMailStorageTable[0-9A-F]{8}$/);
    policy.Properties!.PolicyDocument.Statement.push({ Effect: 'Allow', Action: 'dynamodb:Scan', Resource: { 'Fn::GetAtt': [tableId, 'Arn'] } });
    const { gate, proxy } = await gateFor(edited);
    await clientsOf(proxy, fn).db.send(new GetItemCommand({ TableName: TABLE, Key: item('iam#report') }));
    const file = path.join(fixture.scratchDir(), 'evidence.json');
    writeEvidence(file, gate.snapshot());
    const run = spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), path.join(__dirname, '../../scripts/iam-unused-grants.ts'), file], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    const tableArn = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`;
    const section = run.stdout.split(/\n(?=\S)/).find((s) => s.startsWith(fn))!;
    expect(section).toContain(`EXCESS   dynamodb:Scan on ${tableArn}\n`);
    expect(section).not.toContain(`dynamodb:GetItem on ${tableArn}\n`); // the one call made
    expect(section).toMatch(/reasoned logs:PutLogEvents on \*\n\s+AWSLambdaBasicExecutionRole/);
    // Every other grant of the role is in the section, one way or the other.
    for (const g of grantsOf(gate, fn).filter((g) => g !== `dynamodb:GetItem ${tableArn}`)) expect(section).toContain(g.replace(' ', ' on '));
  });
});

describe('a copy of the template with one action removed', () => {
  it('denies the call that needs it: PutItem gone from CreateInbox', async () => {
    const fn = fnId(template, 'CreateInboxFunction');
    const { proxy } = await gateFor(without(template, fn, 'dynamodb:PutItem'));
    const error = await clientsOf(proxy, fn).db.send(new PutItemCommand({ TableName: TABLE, Item: item('iam#edited') })).catch((e: Error) => e);
    expect((error as Error).name).toBe('AccessDeniedException');
    expect((error as Error).message).toContain('dynamodb:PutItem');
    expect((await direct().db.send(new GetItemCommand({ TableName: TABLE, Key: item('iam#edited') }))).Item).toBeUndefined();
    // The same call with the real template goes through.
    const real = await gateFor(template);
    await clientsOf(real.proxy, fn).db.send(new PutItemCommand({ TableName: TABLE, Item: item('iam#edited') }));
  });

  it('checks each item of a transaction with its own action: a ConditionCheck needs ConditionCheckItem', async () => {
    const fn = fnId(template, 'Ingest');
    const { gate, proxy } = await gateFor(without(template, fn, 'dynamodb:ConditionCheckItem', false));
    expect(grantsOf(gate, fn).filter((g) => g.startsWith('dynamodb:ConditionCheckItem '))).toEqual([]);
    expect(grantsOf(gate, fn)).toContain(`dynamodb:PutItem arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`);
    const { db } = clientsOf(proxy, fn);
    const put = { Put: { TableName: TABLE, Item: item('iam#tx', 'MSG') } };
    const check = { ConditionCheck: { TableName: TABLE, Key: item('iam#allowed'), ConditionExpression: 'attribute_exists(pk)' } };
    const error = await db.send(new TransactWriteItemsCommand({ TransactItems: [put, check] })).catch((e: Error) => e);
    expect((error as Error).name).toBe('AccessDeniedException');
    expect((error as Error).message).toContain('dynamodb:ConditionCheckItem');
    expect((await direct().db.send(new GetItemCommand({ TableName: TABLE, Key: item('iam#tx', 'MSG') }))).Item).toBeUndefined();
    await db.send(new TransactWriteItemsCommand({ TransactItems: [put] }));
    expect((await direct().db.send(new GetItemCommand({ TableName: TABLE, Key: item('iam#tx', 'MSG') }))).Item).toBeDefined();
  });
});

describe('streaming', () => {
  /**
   * Against an upstream that answers only after it has seen the first part of the body, and a client that sends the
   * rest only after that answer has begun: a proxy that buffered either way would never complete (the test would
   * time out); one that streams passes.
   */
  it('passes the body on before it has all arrived, and the answer before it is complete', async () => {
    let sawFirstPart: () => void = () => undefined;
    const firstPartArrived = new Promise<void>((resolve) => (sawFirstPart = resolve));
    let allowRest: () => void = () => undefined;
    const rest = new Promise<void>((resolve) => (allowRest = resolve));
    const upstream = http.createServer((req, res) => {
      req.once('data', () => sawFirstPart());
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('head-of-answer;');
      void rest.then(() => req.on('end', () => res.end('tail-of-answer')).resume());
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    try {
      const gate = createIamGate({ template, region: REGION, accountId: ACCOUNT });
      const proxy = await startIamProxy({ s3Endpoint: `http://127.0.0.1:${(upstream.address() as { port: number }).port}`, gate, log: () => undefined });
      fixture.closeAfterAll(proxy);
      const fn = fnId(template, 'Ingest');
      const bucket = gate.resolve(idOfType(template, 'AWS::S3::Bucket', /^TempMailStorageMail[0-9A-F]{8}$/));
      const answer = await new Promise<string>((resolve, reject) => {
        const req = http.request(`${proxy.s3Endpoint}/${bucket}/inboxes/s/stream.bin`, {
          method: 'PUT',
          headers: { authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyIdFor(fn)}/20260101/${REGION}/s3/aws4_request, SignedHeaders=host, Signature=0`, 'transfer-encoding': 'chunked' },
        });
        req.on('response', (res) => {
          if (res.statusCode !== 200) return reject(new Error(`the proxy answered ${res.statusCode}`));
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
            if (text === 'head-of-answer;') {
              allowRest();
              req.end('second part');
            }
          });
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.write('first part;');
      });
      await firstPartArrived;
      expect(answer).toBe('head-of-answer;tail-of-answer');
    } finally {
      upstream.closeAllConnections();
      upstream.close();
    }
  });
});
