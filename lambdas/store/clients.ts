/**
 * Shared AWS client settings and the DynamoDB client, built once per Lambda container (the S3 client lives in
 * s3-blob-store.ts, so that functions without S3 never load its SDK). Endpoints come from the SDK's own settings
 * or, for the local stand-ins, from the config's endpoints, so the same code talks to AWS or the stand-ins.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { standInSettings } from '../layout/stand-ins';

let dynamo: DynamoDBDocumentClient | undefined;

/** Short timeouts and few retries: a dead dependency should become a 503 quickly, not a hung request. */
export const requestHandler = { connectionTimeout: 2_000, requestTimeout: 10_000 };

/** The DynamoDB document client: one per container on AWS, one per stand-in endpoint locally. */
export function documentClient(endpoint?: string): DynamoDBDocumentClient {
  const make = () =>
    DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 2, requestHandler, ...(endpoint ? standInSettings(endpoint) : {}) }), {
      marshallOptions: { removeUndefinedValues: true },
    });
  if (endpoint) return make();
  dynamo ??= make();
  return dynamo;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** True for errors that mean "the dependency is not there right now", as opposed to a bad request. */
export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; name?: string; $metadata?: { httpStatusCode?: number }; cause?: unknown };
  if (!e) return false;
  if (e.code && NETWORK_CODES.has(e.code)) return true;
  if (e.name === 'TimeoutError' || e.name === 'RequestTimeout' || e.name === 'AbortError') return true;
  if (e.name === 'ServiceUnavailable' || e.name === 'ThrottlingException' || e.name === 'ProvisionedThroughputExceededException') return true;
  const status = e.$metadata?.httpStatusCode;
  if (status === 503 || status === 502 || status === 504) return true;
  if (e.cause && e.cause !== error) return isUnavailable(e.cause);
  return false;
}
