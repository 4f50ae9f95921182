import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { ConnectionFailure } from './api-failure.js';

const UNTRUSTED = 'set CORRAL_FINGERPRINT to the fingerprint the control plane printed at start, or trust its CA with NODE_EXTRA_CA_CERTS';

/**
 * The TLS connection for one request. With a pinned fingerprint the certificate is trusted exactly
 * when its SHA-256 fingerprint matches (the control plane's self-signed certificate, as agents pin
 * it); without one, Node's usual verification of chain and host name applies.
 */
export function connectTls(url: URL, fingerprint: string | undefined): Promise<TLSSocket> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const socket = connect({
    host,
    port: Number(url.port || 443),
    // SNI takes host names only (RFC 6066).
    ...(isIP(host) ? {} : { servername: host }),
    rejectUnauthorized: fingerprint === undefined,
  });
  return new Promise((resolve, reject) => {
    socket.once('error', (error: NodeJS.ErrnoException) => reject(connectionFailure(url, error)));
    socket.once('secureConnect', () => {
      const presented = socket.getPeerCertificate().fingerprint256;
      if (fingerprint === undefined || presented === fingerprint) return resolve(socket);
      socket.destroy();
      reject(new ConnectionFailure(`TLS: the certificate of ${url.host} has the SHA-256 fingerprint ${presented}, not CORRAL_FINGERPRINT's ${fingerprint}: nothing was sent`));
    });
  });
}

function connectionFailure(url: URL, error: NodeJS.ErrnoException): ConnectionFailure {
  // OpenSSL's verification failures have codes such as DEPTH_ZERO_SELF_SIGNED_CERT, without the E of socket errors.
  const untrusted = error.code === 'ERR_TLS_CERT_ALTNAME_INVALID' || (error.code !== undefined && !error.code.startsWith('E'));
  return new ConnectionFailure(untrusted ? `TLS: ${url.host}: ${error.message}: ${UNTRUSTED}` : `cannot reach ${url.origin}: ${error.message}`);
}
