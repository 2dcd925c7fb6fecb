/**
 * What talking to the local stand-ins (DynamoDB Local, the S3 server) takes instead of AWS: their endpoint, a region,
 * any credentials, and no CRC checksums (the S3 server predates them). Stated once for the adapters
 * (lambdas/store/clients.ts, s3-blob-store.ts) and the local stack that makes the table and the bucket (local/).
 */
export const standInSettings = (endpoint: string) => ({
  endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  requestChecksumCalculation: 'WHEN_REQUIRED' as const,
  responseChecksumValidation: 'WHEN_REQUIRED' as const,
});
