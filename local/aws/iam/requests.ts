import type { AwsJson } from '../cfn-json';
/**
 * A data-plane request as the IAM checks AWS makes for it: the action(s) and resource ARN(s), from the wire format
 * the SDK sends (DynamoDB's JSON protocol, S3's REST API in path or virtual-host style, signed in a header or in a
 * presigned URL's query). Pure functions: the proxy (proxy.ts) feeds them, the unit tests call them directly.
 *
 * Stated here once, as AWS documents them: a transaction is authorised item by item with the item's own action
 * (Put → PutItem …, ConditionCheck → ConditionCheckItem, Get → GetItem); BatchGetItem and BatchWriteItem once per
 * table they touch; Query and Scan on an index against the index's ARN; HEAD of an object is s3:GetObject; a copy
 * needs s3:GetObject on its source besides s3:PutObject; a multi-object delete needs s3:DeleteObject per key; a
 * listing is s3:ListBucket on the bucket with its prefix as `s3:prefix`.
 */

export interface IamCheck {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
}

export interface Place {
  region: string;
  accountId: string;
}

/** The access key id of a SigV4-signed request: from its Authorization header, or a presigned URL's query. */
export function accessKeyIdOf(authorization: string | undefined, query: URLSearchParams): string | undefined {
  const credential = authorization ? /Credential=([^/,\s]+)\//.exec(authorization)?.[1] : query.get('X-Amz-Credential')?.split('/')[0];
  return credential || undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// DynamoDB (JSON protocol: POST /, X-Amz-Target: DynamoDB_20120810.<Operation>)

export const tableArn = (place: Place, table: string) => (table.startsWith('arn:') ? table : `arn:aws:dynamodb:${place.region}:${place.accountId}:table/${table}`);

const TRANSACT_WRITE_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

/** Operation name from an X-Amz-Target header (`DynamoDB_20120810.PutItem` → `PutItem`). */
export function dynamodbOperation(target: string | undefined): string | undefined {
  const m = /^DynamoDB_\d+\.(\w+)$/.exec(target ?? '');
  return m?.[1];
}

export function dynamodbChecks(operation: string, body: AwsJson, place: Place): IamCheck[] {
  const checks: IamCheck[] = [];
  const add = (action: string, resource: string) => {
    if (!checks.some((c) => c.action === action && c.resource === resource)) checks.push({ action, resource });
  };
  switch (operation) {
    case 'TransactWriteItems':
      for (const item of body?.TransactItems ?? []) {
        const [kind, detail] = Object.entries(item ?? {})[0] ?? [];
        const action = TRANSACT_WRITE_ACTIONS[kind as string];
        if (!action) throw new Error(`TransactWriteItems: unknown item kind ${kind}`);
        add(action, tableArn(place, (detail as AwsJson).TableName));
      }
      return checks;
    case 'TransactGetItems':
      for (const item of body?.TransactItems ?? []) add('dynamodb:GetItem', tableArn(place, item.Get.TableName));
      return checks;
    case 'BatchGetItem':
    case 'BatchWriteItem':
      for (const table of Object.keys(body?.RequestItems ?? {})) add(`dynamodb:${operation}`, tableArn(place, table));
      return checks;
    case 'ListTables':
      return [{ action: 'dynamodb:ListTables', resource: '*' }];
  }
  const table = body?.TableName ?? body?.ResourceArn;
  if (typeof table !== 'string') throw new Error(`${operation}: no TableName`);
  const index = (operation === 'Query' || operation === 'Scan') && typeof body.IndexName === 'string' ? `/index/${body.IndexName}` : '';
  return [{ action: `dynamodb:${operation}`, resource: tableArn(place, table) + index }];
}

// ---------------------------------------------------------------------------------------------------------------
// S3 (REST)

export interface S3Target {
  bucket?: string;
  /** The object key, decoded. */
  key?: string;
  /** The path to forward in path style (`/bucket/key…`, still encoded as received). */
  pathStyle: string;
}

/**
 * Bucket and key of a request: path style (`/bucket/key`) or virtual-host style (`bucket.localhost:port`, the only
 * virtual-host name that resolves to this machine without DNS set-up).
 */
export function s3Target(rawPath: string, host: string | undefined): S3Target {
  const hostname = (host ?? '').replace(/:\d+$/, '');
  const vhost = /^(.+)\.localhost$/.exec(hostname)?.[1];
  if (vhost) {
    const key = rawPath.replace(/^\//, '');
    return { bucket: vhost, key: key ? decodeURIComponent(key) : undefined, pathStyle: `/${vhost}${rawPath.startsWith('/') ? '' : '/'}${rawPath}` };
  }
  const m = /^\/([^/]+)(?:\/(.*))?$/.exec(rawPath);
  if (!m) return { pathStyle: rawPath };
  return { bucket: decodeURIComponent(m[1]), key: m[2] ? decodeURIComponent(m[2]) : undefined, pathStyle: rawPath };
}

export const objectArn = (bucket: string, key: string) => `arn:aws:s3:::${bucket}/${key}`;
export const bucketArn = (bucket: string) => `arn:aws:s3:::${bucket}`;

/** x-amz-copy-source: `bucket/key` or `/bucket/key`, URL-encoded, maybe `?versionId=…`. */
export function copySource(header: string): { bucket: string; key: string } {
  const [path] = header.split('?');
  const decoded = decodeURIComponent(path).replace(/^\//, '');
  const slash = decoded.indexOf('/');
  return { bucket: decoded.slice(0, slash), key: decoded.slice(slash + 1) };
}

/**
 * The checks for an S3 request other than a multi-object delete (whose keys are in its body: see deleteKeys).
 * Undefined for a request this gate does not map (answered NotImplemented rather than let through unchecked).
 */
export function s3Checks(method: string, target: S3Target, query: URLSearchParams, headers: Record<string, string | string[] | undefined>): IamCheck[] | undefined {
  const { bucket, key } = target;
  const has = (p: string) => query.has(p);
  if (!bucket) return method === 'GET' ? [{ action: 's3:ListAllMyBuckets', resource: '*' }] : undefined;
  if (key !== undefined) {
    const object = objectArn(bucket, key);
    switch (method) {
      case 'GET':
      case 'HEAD':
        if (has('uploadId')) return [{ action: 's3:ListMultipartUploadParts', resource: object }];
        if (has('tagging')) return [{ action: 's3:GetObjectTagging', resource: object }];
        if (has('acl')) return [{ action: 's3:GetObjectAcl', resource: object }];
        return [{ action: 's3:GetObject', resource: object }];
      case 'PUT': {
        if (has('tagging')) return [{ action: 's3:PutObjectTagging', resource: object }];
        if (has('acl')) return [{ action: 's3:PutObjectAcl', resource: object }];
        const source = headers['x-amz-copy-source'];
        const checks: IamCheck[] = [{ action: 's3:PutObject', resource: object }];
        if (typeof source === 'string') {
          const from = copySource(source);
          checks.push({ action: 's3:GetObject', resource: objectArn(from.bucket, from.key) });
        }
        return checks;
      }
      case 'POST':
        // CreateMultipartUpload (?uploads) and CompleteMultipartUpload (?uploadId) are authorised as s3:PutObject.
        return has('uploads') || has('uploadId') ? [{ action: 's3:PutObject', resource: object }] : undefined;
      case 'DELETE':
        if (has('uploadId')) return [{ action: 's3:AbortMultipartUpload', resource: object }];
        if (has('tagging')) return [{ action: 's3:DeleteObjectTagging', resource: object }];
        return [{ action: 's3:DeleteObject', resource: object }];
    }
    return undefined;
  }
  const arn = bucketArn(bucket);
  switch (method) {
    case 'GET':
      if (has('location')) return [{ action: 's3:GetBucketLocation', resource: arn }];
      if (has('versions')) return [{ action: 's3:ListBucketVersions', resource: arn, context: listContext(query) }];
      if (has('uploads')) return [{ action: 's3:ListBucketMultipartUploads', resource: arn }];
      if (has('policy')) return [{ action: 's3:GetBucketPolicy', resource: arn }];
      if (has('cors')) return [{ action: 's3:GetBucketCORS', resource: arn }];
      if (has('lifecycle')) return [{ action: 's3:GetLifecycleConfiguration', resource: arn }];
      if ([...query.keys()].some((k) => !['list-type', 'prefix', 'delimiter', 'max-keys', 'marker', 'continuation-token', 'start-after', 'encoding-type', 'fetch-owner', 'x-id'].includes(k))) return undefined;
      return [{ action: 's3:ListBucket', resource: arn, context: listContext(query) }];
    case 'HEAD':
      return [{ action: 's3:ListBucket', resource: arn }]; // HeadBucket is authorised as ListBucket
    case 'PUT':
      return query.toString() === '' ? [{ action: 's3:CreateBucket', resource: arn }] : undefined;
    case 'DELETE':
      return query.toString() === '' ? [{ action: 's3:DeleteBucket', resource: arn }] : undefined;
  }
  return undefined;
}

/** `s3:prefix` (always: an absent prefix is the empty one), `s3:delimiter` and `s3:max-keys` when given. */
function listContext(query: URLSearchParams): Record<string, string> {
  const context: Record<string, string> = { 's3:prefix': query.get('prefix') ?? '' };
  if (query.has('delimiter')) context['s3:delimiter'] = query.get('delimiter')!;
  if (query.has('max-keys')) context['s3:max-keys'] = query.get('max-keys')!;
  return context;
}

export const isMultiDelete = (method: string, target: S3Target, query: URLSearchParams) =>
  method === 'POST' && target.bucket !== undefined && target.key === undefined && query.has('delete');

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)) : (XML_ENTITIES[e] ?? whole),
  );
export const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => `&${Object.entries(XML_ENTITIES).find(([, v]) => v === c)![0]};`);

/** The keys of a DeleteObjects body (`<Delete><Object><Key>…</Key></Object>…</Delete>`), in order. */
export function deleteKeys(xml: string): { key: string; xml: string }[] {
  return [...xml.matchAll(/<Object>([\s\S]*?)<\/Object>/g)].map((m) => ({ key: unescapeXml(/<Key>([\s\S]*?)<\/Key>/.exec(m[1])?.[1] ?? ''), xml: m[0] }));
}
