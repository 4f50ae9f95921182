import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';

/**
 * The server presented another certificate than the pinned one. The connection was closed right
 * after the handshake: nothing was sent on it.
 */
export class FingerprintMismatch extends Error {
  override name = 'FingerprintMismatch';

  constructor(
    /** `host:port` as the URL names it. */
    readonly host: string,
    /** The SHA-256 fingerprint of the certificate the server presented. */
    readonly presented: string,
    /** The pinned one. */
    readonly expected: string,
  ) {
    super(`the certificate of ${host} has the SHA-256 fingerprint ${presented}, not the pinned ${expected}`);
  }
}

export interface PinnedTlsOptions {
  /** How long connecting and the handshake may take before the socket is destroyed (an ETIMEDOUT error); no limit without it. */
  readonly timeoutMs?: number;
}

/**
 * A TLS connection to the host and port of `url` (default port 443), resolved only once it can be
 * trusted, so nothing is ever written to an untrusted peer.
 *
 * With a pinned `fingerprint` (the form `parseFingerprint` returns) the certificate is trusted
 * exactly when its SHA-256 fingerprint matches: the control plane's self-signed certificate, as
 * agents and `corral` pin it. Chain and host name are not checked then, since the fingerprint names
 * the one certificate. Without one, Node's usual verification of chain and host name applies.
 *
 * Rejects with `FingerprintMismatch`, or with the socket's own error (its `code` says which: ECONNREFUSED,
 * ETIMEDOUT, DEPTH_ZERO_SELF_SIGNED_CERT...).
 */
export function connectPinned(url: URL, fingerprint: string | undefined, options: PinnedTlsOptions = {}): Promise<TLSSocket> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const socket = connect({
    host,
    port: Number(url.port || 443),
    // SNI takes host names only (RFC 6066).
    ...(isIP(host) ? {} : { servername: host }),
    rejectUnauthorized: fingerprint === undefined,
  });
  if (options.timeoutMs !== undefined) socket.setTimeout(options.timeoutMs);
  return new Promise((resolve, reject) => {
    socket.once('timeout', () => {
      const error: NodeJS.ErrnoException = new Error(`connecting to ${url.host} timed out after ${options.timeoutMs} ms`);
      error.code = 'ETIMEDOUT';
      socket.destroy(error);
    });
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      socket.setTimeout(0);
      const presented = socket.getPeerCertificate().fingerprint256;
      if (fingerprint === undefined || presented === fingerprint) return resolve(socket);
      socket.destroy();
      reject(new FingerprintMismatch(url.host, presented, fingerprint));
    });
  });
}
