/**
 * KMS in the control-plane stand-in (local/aws/control-plane/), JSON 1.1: Encrypt and Decrypt, AES-256-GCM under a
 * per-key secret made at start and bound to the EncryptionContext, so that a ciphertext opens only with its context
 * and its key, as with KMS. The blob names its key, as KMS's does.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { kmsKeyId, ServiceError, type Check, type ControlPlaneState } from './state';

const sortedContext = (context: unknown) => Buffer.from(JSON.stringify(Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) => a.localeCompare(b))));
export async function kms(state: ControlPlaneState, check: Check, operation: string, input: Record<string, unknown>, accessKeyId?: string): Promise<unknown> {
  const { region, account, kmsKeys } = state;
  if (operation !== 'Encrypt' && operation !== 'Decrypt') throw new ServiceError(400, 'UnsupportedOperationException', `${operation} is not answered by this stand-in`);
  let id = typeof input.KeyId === 'string' ? kmsKeyId(input.KeyId) : undefined;
  let sealed: { iv: Buffer; data: Buffer; tag: Buffer } | undefined;
  if (operation === 'Decrypt') {
    // The blob names its key, as KMS's does; a KeyId given must be the same key.
    const blob = Buffer.from(String(input.CiphertextBlob ?? ''), 'base64');
    const idLength = blob[0] ?? 0;
    const blobKey = blob.subarray(1, 1 + idLength).toString('utf8');
    if (!blobKey || blob.length < 1 + idLength + 28 || (id !== undefined && id !== blobKey)) throw new ServiceError(400, 'InvalidCiphertextException', 'The ciphertext is invalid');
    id = blobKey;
    const rest = blob.subarray(1 + idLength);
    sealed = { iv: rest.subarray(0, 12), tag: rest.subarray(rest.length - 16), data: rest.subarray(12, rest.length - 16) };
  }
  if (!id) throw new ServiceError(400, 'ValidationException', 'KeyId is required');
  const arn = `arn:aws:kms:${region}:${account}:key/${id}`;
  await check({ service: 'kms', action: `kms:${operation}`, operation, resource: arn, accessKeyId });
  const secret = kmsKeys.get(id);
  if (!secret) throw new ServiceError(400, 'NotFoundException', `Key '${arn}' does not exist`);
  const aad = sortedContext(input.EncryptionContext);
  if (operation === 'Encrypt') {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', secret, iv).setAAD(aad);
    const data = Buffer.concat([cipher.update(Buffer.from(String(input.Plaintext ?? ''), 'base64')), cipher.final()]);
    const idBytes = Buffer.from(id, 'utf8');
    const blob = Buffer.concat([Buffer.from([idBytes.length]), idBytes, iv, data, cipher.getAuthTag()]);
    return { CiphertextBlob: blob.toString('base64'), KeyId: arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', secret, sealed!.iv).setAAD(aad);
    decipher.setAuthTag(sealed!.tag);
    const plain = Buffer.concat([decipher.update(sealed!.data), decipher.final()]);
    return { Plaintext: plain.toString('base64'), KeyId: arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  } catch {
    throw new ServiceError(400, 'InvalidCiphertextException', 'The ciphertext or its encryption context is invalid');
  }
}
