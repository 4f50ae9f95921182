import { AGENT_WEBSOCKET_PATH } from '@corral/protocol';
import { connectPinned } from '@corral/pinned-tls';
import type { TLSSocket } from 'node:tls';
import WebSocket, { type ClientOptions } from 'ws';

export interface DialTarget {
  /** The control plane, `https://host:port`. */
  readonly url: URL;
  /** The pinned SHA-256 fingerprint of its certificate. */
  readonly fingerprint: string;
  readonly node: string;
  readonly credential: string;
}

/** The control plane answered the websocket upgrade with an HTTP status instead of switching protocols. */
export class UpgradeRefused extends Error {
  override name = 'UpgradeRefused';

  constructor(
    readonly status: number,
    reason: string,
  ) {
    super(`the control plane answered the websocket upgrade with HTTP ${status}${reason ? ` ${reason}` : ''}`);
  }
}

/** How long connecting, the TLS handshake and the upgrade may each take. */
const STEP_TIMEOUT_MS = 10_000;

/**
 * Opens `wss://<host:port>/agent/v1` (or another `path` of the agent's, such as a stream's) with the
 * node's credential. The socket ws writes the upgrade request to (and so the credential) is handed
 * over only once pinned: a server with another certificate never sees a byte. Rejects with
 * `UpgradeRefused` (a 401 for a wrong credential), a `FingerprintMismatch`, or the connection's error.
 */
export function dial(target: DialTarget, path = AGENT_WEBSOCKET_PATH): Promise<WebSocket> {
  // Node's http client also takes the asynchronous form createConnection(options, callback), the
  // one http.Agent uses; ws hands the option on to it.
  const createConnection = ((_options: unknown, callback: (error: Error | null, socket?: TLSSocket) => void) => {
    connectPinned(target.url, target.fingerprint, { timeoutMs: STEP_TIMEOUT_MS }).then(
      (socket) => callback(null, socket),
      (error: Error) => callback(error),
    );
  }) as unknown as ClientOptions['createConnection'];
  const socket = new WebSocket(`wss://${target.url.host}${path}`, {
    headers: { authorization: `CorralNode ${target.node}:${target.credential}` },
    createConnection,
    handshakeTimeout: STEP_TIMEOUT_MS,
    perMessageDeflate: false,
  });
  return new Promise((resolve, reject) => {
    let refused: UpgradeRefused | undefined;
    socket.once('unexpected-response', (_request, response) => {
      refused = new UpgradeRefused(response.statusCode ?? 0, response.statusMessage ?? '');
      socket.terminate();
    });
    const failed = (error: Error) => reject(refused ?? error);
    socket.once('error', failed);
    socket.once('open', () => {
      socket.off('error', failed);
      resolve(socket);
    });
  });
}
