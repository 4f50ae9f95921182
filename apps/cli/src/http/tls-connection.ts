import { connectPinned, FingerprintMismatch } from '@corral/pinned-tls';
import type { TLSSocket } from 'node:tls';
import { ConnectionFailure } from './api-failure.js';

/** A certificate fingerprint to trust, and where the user gave it, for messages. */
export interface Pin {
  readonly fingerprint: string;
  /** `CORRAL_FINGERPRINT` or `--fingerprint`. */
  readonly source: string;
}

const UNTRUSTED = 'set CORRAL_FINGERPRINT to the fingerprint the control plane printed at start, or trust its CA with NODE_EXTRA_CA_CERTS';

/**
 * The TLS connection for one request (libs/pinned-tls): with a pin, the certificate is trusted
 * exactly when its SHA-256 fingerprint matches, and nothing is sent otherwise; without one, Node's
 * usual verification of chain and host name applies.
 */
export async function connectTls(url: URL, pin: Pin | undefined): Promise<TLSSocket> {
  try {
    return await connectPinned(url, pin?.fingerprint);
  } catch (error) {
    if (error instanceof FingerprintMismatch && pin !== undefined) {
      throw new ConnectionFailure(
        `TLS: the certificate of ${error.host} has the SHA-256 fingerprint ${error.presented}, not ${pin.source}'s ${error.expected}: nothing was sent`,
      );
    }
    throw connectionFailure(url, error as NodeJS.ErrnoException);
  }
}

function connectionFailure(url: URL, error: NodeJS.ErrnoException): ConnectionFailure {
  // OpenSSL's verification failures have codes such as DEPTH_ZERO_SELF_SIGNED_CERT, without the E of socket errors.
  const untrusted = error.code === 'ERR_TLS_CERT_ALTNAME_INVALID' || (error.code !== undefined && !error.code.startsWith('E'));
  return new ConnectionFailure(
    untrusted ? `TLS: ${url.host}: ${error.message}: ${UNTRUSTED}` : `cannot reach ${url.origin}: ${error.message}`,
  );
}
