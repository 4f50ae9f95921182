import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Config } from '../config/config.js';

export interface TlsMaterial {
  readonly key: string;
  readonly cert: string;
  /** SHA-256 fingerprint as colon-separated hex: agents pin it when they join. */
  readonly fingerprint: string;
  readonly origin: 'operator' | 'generated' | 'reused';
}

/** Nest token of this replica's certificate fingerprint (`TlsMaterial.fingerprint`). */
export const TLS_FINGERPRINT = Symbol('TLS_FINGERPRINT');

const CERT_FILE = 'tls/corral.crt';
const KEY_FILE = 'tls/corral.key';
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

/**
 * The operator's certificate when CORRAL_TLS_CERT/KEY are set; otherwise a self-signed EC P-256
 * certificate generated on first start into the data dir and reused after (as PVE's pve-ssl.pem).
 */
export async function loadTlsMaterial(config: Config): Promise<TlsMaterial> {
  if (config.tls) {
    const [cert, key] = await Promise.all([readFile(config.tls.certFile, 'utf8'), readFile(config.tls.keyFile, 'utf8')]);
    return { cert, key, fingerprint: fingerprintOf(cert), origin: 'operator' };
  }
  const certPath = join(config.dataDir, CERT_FILE);
  const keyPath = join(config.dataDir, KEY_FILE);
  const existing = await readPair(certPath, keyPath);
  if (existing) return { ...existing, fingerprint: fingerprintOf(existing.cert), origin: 'reused' };

  const name = hostname();
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + TEN_YEARS_MS),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: name },
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  await mkdir(join(config.dataDir, 'tls'), { recursive: true, mode: 0o700 });
  await writeFile(keyPath, pems.private, { mode: 0o600 });
  await writeFile(certPath, pems.cert, { mode: 0o644 });
  return { cert: pems.cert, key: pems.private, fingerprint: fingerprintOf(pems.cert), origin: 'generated' };
}

export function fingerprintOf(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}

async function readPair(certPath: string, keyPath: string): Promise<{ cert: string; key: string } | null> {
  try {
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    return { cert, key };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
