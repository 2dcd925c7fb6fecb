/**
 * The IAM gate's pure parts (local/aws/iam): intrinsics resolved as CloudFormation would, wire requests mapped to the
 * checks AWS documents, and the unused-grant report. The proxy and the evaluator against real stand-ins and the
 * synthesized template are in test/integration/iam-gate.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { accessKeyIdFor, createResolver, explainUnused, functionForAccessKeyId, templateReasons, UNUSED_GRANT_REASONS, identityPolicies, resolveIntrinsics, unusedGrants, type CfnTemplate } from '../../local/aws/iam';
import { accessKeyIdOf, copySource, deleteKeys, dynamodbChecks, s3Checks, s3Target } from '../../local/aws/iam/requests';

const place = { region: 'eu-west-1', accountId: '111122223333' };
const table = (name: string) => `arn:aws:dynamodb:eu-west-1:111122223333:table/${name}`;

/** A small template of the shape CDK writes: a function, its role with a default policy, a table and a bucket. */
const template: CfnTemplate = {
  Resources: {
    Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
    FnRole: {
      Type: 'AWS::IAM::Role',
      Properties: { ManagedPolicyArns: [{ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']] }] },
    },
    FnRolePolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        Roles: [{ Ref: 'FnRole' }],
        PolicyDocument: {
          Statement: [
            { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:PutItem'], Resource: [{ 'Fn::GetAtt': ['Table', 'Arn'] }, { 'Fn::Sub': '${Table.Arn}/index/*' }] },
            { Effect: 'Allow', Action: 's3:GetObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Bucket', 'Arn'] }, '/inboxes/*']] } },
          ],
        },
      },
    },
    OtherRole: { Type: 'AWS::IAM::Role', Properties: {} },
    OtherPolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: { Roles: [{ Ref: 'OtherRole' }], PolicyDocument: { Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] } },
    },
    Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['FnRole', 'Arn'] } } },
  },
};
const resolve = createResolver({ template, ...place, names: { Table: 'mail-table', Bucket: 'Mail-Bucket' } });

describe('the policy model', () => {
  it('resolves Ref, GetAtt, Join, Sub, Select and Split with the runner names', () => {
    expect(resolveIntrinsics({ 'Fn::GetAtt': ['Table', 'Arn'] }, resolve)).toBe(table('mail-table'));
    expect(resolveIntrinsics({ 'Fn::Sub': ['${T}/x/${AWS::Region}/${!Literal}', { T: { Ref: 'Table' } }] }, resolve)).toBe('mail-table/x/eu-west-1/${Literal}');
    expect(resolveIntrinsics({ 'Fn::Select': [1, { 'Fn::Split': ['/', { 'Fn::GetAtt': ['Table', 'Arn'] }] }] }, resolve)).toBe('mail-table');
    expect(resolveIntrinsics({ 'Fn::GetAtt': ['Bucket', 'Arn'] }, resolve)).toBe('arn:aws:s3:::mail-bucket'); // S3 names are lower case
    expect(() => resolveIntrinsics({ 'Fn::ImportValue': 'x' }, resolve)).toThrow(/Fn::ImportValue/);
  });

  it("gives a function its role's policies only, AWS managed ones by their content", () => {
    const policies = identityPolicies(template, 'Fn', resolve);
    expect(policies.map((p) => p.name)).toEqual(['FnRolePolicy', 'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']);
    expect(policies[0].policy.Statement[0].Resource).toEqual([table('mail-table'), `${table('mail-table')}/index/*`]);
    expect(policies[1].policy.Statement[0].Action).toContain('logs:PutLogEvents');
    const unknown = JSON.parse(JSON.stringify(template)) as CfnTemplate;
    unknown.Resources.FnRole.Properties!.ManagedPolicyArns = ['arn:aws:iam::aws:policy/AdministratorAccess'];
    expect(() => identityPolicies(unknown, 'Fn', resolve)).toThrow(/AdministratorAccess.*not known/);
  });

  it('names each function by an access key id it can be told back from', () => {
    expect(functionForAccessKeyId(accessKeyIdFor('TempMailApiGetInboxFunctionE6D6D084'))).toBe('TempMailApiGetInboxFunctionE6D6D084');
    expect(accessKeyIdFor('Fn')).toMatch(/^[A-Za-z0-9]+$/); // DynamoDB Local accepts letters and digits only
    expect(functionForAccessKeyId('S3RVER')).toBeUndefined();
  });
});

describe('DynamoDB requests', () => {
  it('checks each transaction item with its own action', () => {
    const body = {
      TransactItems: [
        { Put: { TableName: 'a', Item: {} } },
        { Update: { TableName: 'a', Key: {} } },
        { Delete: { TableName: 'b', Key: {} } },
        { ConditionCheck: { TableName: 'a', Key: {}, ConditionExpression: 'x' } },
      ],
    };
    expect(dynamodbChecks('TransactWriteItems', body, place)).toEqual([
      { action: 'dynamodb:PutItem', resource: table('a') },
      { action: 'dynamodb:UpdateItem', resource: table('a') },
      { action: 'dynamodb:DeleteItem', resource: table('b') },
      { action: 'dynamodb:ConditionCheckItem', resource: table('a') },
    ]);
  });

  it('checks a batch once per table, a Query on an index against the index, a table ARN as given', () => {
    expect(dynamodbChecks('BatchWriteItem', { RequestItems: { a: [{}, {}], b: [{}] } }, place)).toEqual([
      { action: 'dynamodb:BatchWriteItem', resource: table('a') },
      { action: 'dynamodb:BatchWriteItem', resource: table('b') },
    ]);
    expect(dynamodbChecks('BatchGetItem', { RequestItems: { a: { Keys: [] } } }, place)).toEqual([{ action: 'dynamodb:BatchGetItem', resource: table('a') }]);
    expect(dynamodbChecks('Query', { TableName: 'a', IndexName: 'by_account' }, place)).toEqual([{ action: 'dynamodb:Query', resource: `${table('a')}/index/by_account` }]);
    expect(dynamodbChecks('GetItem', { TableName: table('c') }, place)).toEqual([{ action: 'dynamodb:GetItem', resource: table('c') }]);
    expect(() => dynamodbChecks('PutItem', {}, place)).toThrow(/TableName/);
  });

  it('reads the caller from the Authorization header or a presigned query', () => {
    expect(accessKeyIdOf('AWS4-HMAC-SHA256 Credential=ASIAFn/20260101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x', new URLSearchParams())).toBe('ASIAFn');
    expect(accessKeyIdOf(undefined, new URLSearchParams({ 'X-Amz-Credential': 'ASIAFn/20260101/eu-west-1/s3/aws4_request' }))).toBe('ASIAFn');
    expect(accessKeyIdOf(undefined, new URLSearchParams())).toBeUndefined();
  });
});

describe('S3 requests', () => {
  const none = new URLSearchParams();
  it('maps objects in path and virtual-host style, keys decoded', () => {
    const path = s3Target('/bucket/inboxes/a%20b/c%2Bd.eml', '127.0.0.1:9000');
    expect(path).toEqual({ bucket: 'bucket', key: 'inboxes/a b/c+d.eml', pathStyle: '/bucket/inboxes/a%20b/c%2Bd.eml' });
    const vhost = s3Target('/inboxes/x', 'bucket.localhost:9000');
    expect(vhost).toEqual({ bucket: 'bucket', key: 'inboxes/x', pathStyle: '/bucket/inboxes/x' });
    expect(s3Checks('GET', path, none, {})).toEqual([{ action: 's3:GetObject', resource: 'arn:aws:s3:::bucket/inboxes/a b/c+d.eml' }]);
    expect(s3Checks('HEAD', vhost, none, {})).toEqual([{ action: 's3:GetObject', resource: 'arn:aws:s3:::bucket/inboxes/x' }]);
    expect(s3Checks('DELETE', vhost, none, {})).toEqual([{ action: 's3:DeleteObject', resource: 'arn:aws:s3:::bucket/inboxes/x' }]);
  });

  it('checks a copy on its source too', () => {
    expect(copySource('/src/inbound/a%2Fb?versionId=1')).toEqual({ bucket: 'src', key: 'inbound/a/b' });
    expect(s3Checks('PUT', s3Target('/dst/inboxes/k', undefined), none, { 'x-amz-copy-source': 'src/inbound/k' })).toEqual([
      { action: 's3:PutObject', resource: 'arn:aws:s3:::dst/inboxes/k' },
      { action: 's3:GetObject', resource: 'arn:aws:s3:::src/inbound/k' },
    ]);
  });

  it('checks a listing as ListBucket with its prefix, the empty one when absent', () => {
    const bucket = s3Target('/bucket', undefined);
    expect(s3Checks('GET', bucket, new URLSearchParams({ 'list-type': '2', prefix: 'inboxes/i/' }), {})).toEqual([
      { action: 's3:ListBucket', resource: 'arn:aws:s3:::bucket', context: { 's3:prefix': 'inboxes/i/' } },
    ]);
    expect(s3Checks('GET', bucket, none, {})).toEqual([{ action: 's3:ListBucket', resource: 'arn:aws:s3:::bucket', context: { 's3:prefix': '' } }]);
    expect(s3Checks('GET', bucket, new URLSearchParams({ acl: '' }), {})).toBeUndefined(); // not mapped: refused, not let through
  });

  it("reads a multi-object delete's keys, entities decoded", () => {
    const xml = '<Delete><Object><Key>inboxes/a&amp;b</Key></Object><Object><Key>inbound/c</Key><VersionId>1</VersionId></Object></Delete>';
    expect(deleteKeys(xml).map((o) => o.key)).toEqual(['inboxes/a&b', 'inbound/c']);
  });
});

describe('unused grants', () => {
  it('lists each granted action and resource pattern no recorded call matched', () => {
    const calls = [
      { functionLogicalId: 'Fn', action: 'dynamodb:GetItem', resource: table('mail-table') },
      { functionLogicalId: 'Fn', action: 's3:GetObject', resource: 'arn:aws:s3:::mail-bucket/inboxes/i/m.eml' },
      { functionLogicalId: 'Other', action: 'dynamodb:PutItem', resource: table('mail-table') }, // another function's call
    ];
    const unused = unusedGrants(template, calls, resolve).map((u) => `${u.action} ${u.resource}`);
    expect(unused).toEqual([
      `dynamodb:GetItem ${table('mail-table')}/index/*`,
      `dynamodb:PutItem ${table('mail-table')}`,
      `dynamodb:PutItem ${table('mail-table')}/index/*`,
      'logs:CreateLogGroup *',
      'logs:CreateLogStream *',
      'logs:PutLogEvents *',
    ]);
  });
});

describe('reasons for unused grants', () => {
  it("explains only what the Lambda service does with the role, read off the template, and leaves the rest as excess", () => {
    const withQueue = JSON.parse(JSON.stringify(template)) as CfnTemplate;
    withQueue.Resources.Queue = { Type: 'AWS::SQS::Queue', Properties: {} };
    withQueue.Resources.Failed = { Type: 'AWS::SQS::Queue', Properties: {} };
    withQueue.Resources.Mapping = {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { FunctionName: { Ref: 'Fn' }, EventSourceArn: { 'Fn::GetAtt': ['Queue', 'Arn'] }, DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['Failed', 'Arn'] } } } },
    };
    const r = createResolver({ template: withQueue, ...place });
    const queue = r('Queue', 'Arn');
    const failed = r('Failed', 'Arn');
    const grant = (functionLogicalId: string, action: string, resource: string) => ({ functionLogicalId, action, resource, policy: 'p' });
    const { explained, unexplained } = explainUnused(
      [
        grant('Fn', 'logs:PutLogEvents', '*'),
        grant('Fn', 'sqs:ReceiveMessage', queue),
        grant('Fn', 'sqs:SendMessage', failed),
        grant('Fn', 'sqs:SendMessage', queue), // the poller never sends to its own queue
        grant('Other', 'sqs:ReceiveMessage', queue), // another function has no mapping on it
        grant('Fn', 'dynamodb:BatchGetItem', table('t')),
      ],
      [...UNUSED_GRANT_REASONS, ...templateReasons(withQueue, r)],
    );
    expect(explained.map((g) => `${g.functionLogicalId} ${g.action}`)).toEqual(['Fn logs:PutLogEvents', 'Fn sqs:ReceiveMessage', 'Fn sqs:SendMessage']);
    expect(explained.map((g) => g.reason)).toEqual([
      expect.stringContaining('AWSLambdaBasicExecutionRole'),
      expect.stringContaining("queue's event-source mapping"),
      expect.stringContaining('on-failure destination'),
    ]);
    expect(unexplained.map((g) => `${g.functionLogicalId} ${g.action}`)).toEqual(['Fn sqs:SendMessage', 'Other sqs:ReceiveMessage', 'Fn dynamodb:BatchGetItem']);
  });
});

describe('licence boundary', () => {
  it('keeps the AGPL evaluator out of everything deployed: nothing under lib/ or lambdas/ imports it or the gate', () => {
    const root = path.join(__dirname, '..', '..');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) && /@cloud-copilot|local\/aws\/iam/.test(fs.readFileSync(file, 'utf8'))) offenders.push(path.relative(root, file));
      }
    };
    for (const dir of ['lib', 'lambdas', 'bin']) walk(path.join(root, dir));
    expect(offenders).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(manifest.dependencies['@cloud-copilot/iam-simulate']).toBeUndefined();
    expect(manifest.devDependencies['@cloud-copilot/iam-simulate']).toBeDefined();
  });
});
