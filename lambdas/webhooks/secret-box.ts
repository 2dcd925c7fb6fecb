/**
 * Sealing webhook signing secrets, so that a read of the table (a backup, an export, a leaked scan) does not give
 * them away. Both forms use authenticated encryption bound to the webhook (its id and account as associated
 * data / KMS encryption context), so a sealed secret copied onto another webhook does not open:
 * - locally, AES-256-GCM with a key made once in the data folder (readable by its owner only, beside the database
 *   but not in it);
 * - on AWS, KMS (a customer-managed key): the key never leaves KMS, the create function may only Encrypt and the
 *   sender only Decrypt (a leaked API function's role cannot open any secret), and every Decrypt is in CloudTrail.
 *   A key of our own in Secrets Manager would cost less per call but would let every holder of it open every
 *   secret; KMS at $1/month plus $0.03 per 10,000 calls (the sender caches opened secrets) is worth that split.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SecretBox } from '../core/ports';

export const SECRET_KEY_FILE = 'webhook-secrets.key';

const aad = (context: Record<string, string>) => Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));

export class FileKeySecretBox implements SecretBox {
  private key?: Buffer;
  constructor(private readonly dataDir: string) {}

  /** Made on first use, so that a data folder without webhooks never grows a key. */
  private keyBytes(): Buffer {
    if (this.key) return this.key;
    const file = path.join(this.dataDir, SECRET_KEY_FILE);
    try {
      this.key = fs.readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      try {
        fs.writeFileSync(file, randomBytes(32), { mode: 0o600, flag: 'wx' });
      } catch (raced) {
        if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
      }
      this.key = fs.readFileSync(file);
    }
    if (this.key.length !== 32) throw new Error(`${file} is not a 32-byte key`);
    return this.key;
  }

  async seal(secret: string, context: Record<string, string>): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keyBytes(), iv).setAAD(aad(context));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['a1', iv, sealed, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  async open(sealed: string, context: Record<string, string>): Promise<string> {
    const [version, iv, data, tag] = sealed.split('.');
    if (version !== 'a1' || !tag) throw new Error('not a secret sealed by this store');
    const decipher = createDecipheriv('aes-256-gcm', this.keyBytes(), Buffer.from(iv, 'base64url')).setAAD(aad(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** Opened secrets are kept this long in a container, so that a burst of deliveries costs one Decrypt per webhook. */
const OPEN_CACHE_MS = 5 * 60_000;

export class KmsSecretBox implements SecretBox {
  private client?: import('@aws-sdk/client-kms').KMSClient;
  private readonly opened = new Map<string, { secret: string; until: number }>();
  constructor(private readonly keyId: string | undefined) {}

  // The KMS SDK loads only in the functions that seal or open (a require, so that esbuild defers it).
  private kms() {
    const sdk = require('@aws-sdk/client-kms') as typeof import('@aws-sdk/client-kms');
    this.client ??= new sdk.KMSClient({ maxAttempts: 3 });
    return { sdk, client: this.client };
  }

  private requireKey(): string {
    if (!this.keyId) throw new Error('WEBHOOK_KEY_ID is not set: this function may not seal or open webhook secrets');
    return this.keyId;
  }

  async seal(secret: string, context: Record<string, string>): Promise<string> {
    const { sdk, client } = this.kms();
    const out = await client.send(new sdk.EncryptCommand({ KeyId: this.requireKey(), Plaintext: Buffer.from(secret, 'utf8'), EncryptionContext: context }));
    return `k1.${Buffer.from(out.CiphertextBlob!).toString('base64url')}`;
  }

  async open(sealed: string, context: Record<string, string>): Promise<string> {
    const cached = this.opened.get(sealed);
    if (cached && cached.until > Date.now()) return cached.secret;
    const [version, blob] = sealed.split('.');
    if (version !== 'k1' || !blob) throw new Error('not a secret sealed by KMS');
    const { sdk, client } = this.kms();
    const out = await client.send(new sdk.DecryptCommand({ KeyId: this.requireKey(), CiphertextBlob: Buffer.from(blob, 'base64url'), EncryptionContext: context }));
    const secret = Buffer.from(out.Plaintext!).toString('utf8');
    this.opened.set(sealed, { secret, until: Date.now() + OPEN_CACHE_MS });
    return secret;
  }
}
