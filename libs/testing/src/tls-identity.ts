import { X509Certificate } from 'node:crypto';
import { generate } from 'selfsigned';

export interface TlsIdentity {
  readonly key: string;
  readonly cert: string;
  /** SHA-256, as `X509Certificate.fingerprint256` writes it. */
  readonly fingerprint: string;
}

/** A fresh self-signed EC P-256 certificate for localhost and 127.0.0.1, as the control plane generates its own. */
export async function selfSignedIdentity(): Promise<TlsIdentity> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert, fingerprint: new X509Certificate(pems.cert).fingerprint256 };
}
