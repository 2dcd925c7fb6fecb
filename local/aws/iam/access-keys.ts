/**
 * Who is calling: the runner gives each function process its own access key id, and the proxy reads it back from
 * the SigV4 credential (Authorization header or a presigned URL's X-Amz-Credential) to know whose policies apply.
 *
 * The id is the function's logical id behind Lambda's temporary-credential prefix: readable in logs, reversible
 * without a table, and only letters and digits, which DynamoDB Local requires of an access key id. It is not a
 * secret and proves nothing: on this machine every process is trusted; the point is to apply the right policy.
 */
const PREFIX = 'ASIA';

export function accessKeyIdFor(functionLogicalId: string): string {
  if (!/^[A-Za-z0-9]+$/.test(functionLogicalId)) throw new Error(`not a logical id: ${functionLogicalId}`);
  return `${PREFIX}${functionLogicalId}`;
}

/** The function an access key id was made for, or undefined for any other key. */
export function functionForAccessKeyId(accessKeyId: string): string | undefined {
  return accessKeyId.startsWith(PREFIX) && accessKeyId.length > PREFIX.length ? accessKeyId.slice(PREFIX.length) : undefined;
}
