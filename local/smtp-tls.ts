/**
 * The SMTP stand-in's STARTTLS certificate. Applications under test are often configured as for production, with
 * `requireTLS` (nodemailer), EMAIL_USE_TLS (Django) or `enable_starttls` (Rails), and cannot send to a server that
 * offers no STARTTLS (Mailpit offers it). Locally nothing can be verified against a public CA, so the stack makes a
 * self-signed certificate for localhost on its first start and keeps it in the data folder (the same one on every
 * restart, so a client told to trust it once keeps trusting it), unless TEMPMAIL_SMTP_TLS_CERT / TEMPMAIL_SMTP_TLS_KEY
 * name a pair of the user's own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../lambdas/config/app-config';

export interface TlsPair {
  key: Buffer;
  cert: Buffer;
}

/** Where the made certificate and its private key live (the key readable by its owner only). */
export const smtpTlsFiles = (dataDir: string) => ({ cert: path.join(dataDir, 'smtp-tls-cert.pem'), key: path.join(dataDir, 'smtp-tls-key.pem') });

/** How long a made certificate is valid: long enough never to expire under a developer, as clients check the dates. */
const VALIDITY_DAYS = 3650;

/**
 * The certificate and key the SMTP server offers with STARTTLS: the user's own pair when `files` names one, else
 * the data folder's, made now when absent.
 */
export async function smtpTlsPair(dataDir: string, files?: { cert: string; key: string }): Promise<TlsPair> {
  if (files) {
    const read = (file: string, setting: string) => {
      try {
        return fs.readFileSync(file);
      } catch (error) {
        throw new ConfigError(`${setting}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    };
    return { cert: read(files.cert, 'TEMPMAIL_SMTP_TLS_CERT'), key: read(files.key, 'TEMPMAIL_SMTP_TLS_KEY') };
  }
  const own = smtpTlsFiles(dataDir);
  if (fs.existsSync(own.cert) && fs.existsSync(own.key)) return { cert: fs.readFileSync(own.cert), key: fs.readFileSync(own.key) };
  const made = await selfSigned();
  // Key first, each written whole under a temporary name: a start killed half-way never leaves a cert without its key.
  writeAtomically(own.key, made.key, 0o600);
  writeAtomically(own.cert, made.cert, 0o644);
  return made;
}

async function selfSigned(): Promise<TlsPair> {
  // Required here, not imported: only a first start makes a certificate, and the library loads a WebCrypto stack.
  const { generate } = require('selfsigned') as typeof import('selfsigned');
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }, { name: 'organizationName', value: 'TempMail local SMTP' }], {
    keyType: 'rsa',
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + VALIDITY_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  return { key: Buffer.from(pems.private), cert: Buffer.from(pems.cert) };
}

function writeAtomically(file: string, data: Buffer, mode: number): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, data, { mode });
  fs.renameSync(temporary, file);
}
