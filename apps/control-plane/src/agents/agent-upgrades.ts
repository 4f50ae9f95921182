import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { sha256 } from '../access/auth/authenticator.js';
import { refuseUpgrade, type Upgrade } from '../http/websocket-upgrades.js';
import { LOGGER } from '../logging/loggers.js';
import { NodesRepository } from '../inventory/nodes/nodes.repository.js';

const MAX_FRAME_BYTES = 16 * 1024 * 1024;
const AUTHORIZATION = /^CorralNode ([^:\s]+):(\S+)$/;

/**
 * The agents' websockets, their connections and their byte streams: each upgrade request must
 * carry a node's credential (`Authorization: CorralNode <node>:<credential>`), checked against the
 * nodes' credential hashes before the websocket is accepted.
 */
@Injectable()
export class AgentUpgrades {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  constructor(
    private readonly nodes: NodesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The node whose credential the upgrade request carries; null once it is refused (401, or 503 when it cannot be checked). */
  async authenticate({ request, socket }: Upgrade): Promise<string | null> {
    const [, node = '', credential = ''] = AUTHORIZATION.exec(request.headers.authorization ?? '') ?? [];
    const credentialHash = sha256(credential);
    let row;
    try {
      row = node === '' ? null : await this.nodes.byCredentialHash(credentialHash);
    } catch (error) {
      this.logger.error({ err: error, node }, 'cannot check an agent credential');
      refuseUpgrade(socket, 503, 'Service Unavailable');
      return null;
    }
    if (!row || row.name !== node) {
      this.logger.warn({ node, address: request.socket.remoteAddress }, 'agent refused: unknown node or wrong credential');
      refuseUpgrade(socket, 401, 'Unauthorized');
      return null;
    }
    return node;
  }

  /** Accepts an authenticated upgrade: its websocket goes to `use`. */
  accept({ request, socket, head }: Upgrade, use: (socket: WebSocket) => void): void {
    this.server.handleUpgrade(request, socket, head, use);
  }

  /** Closes every agent websocket, also those still before their hello (the HTTPS server does not track upgraded sockets). */
  async close(): Promise<void> {
    for (const socket of this.server.clients) socket.close(1001, 'the control plane is shutting down');
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The peer's address, an IPv4-mapped IPv6 address (`::ffff:192.0.2.10`, from a dual-stack listener) as the IPv4 address it is. */
export function remoteAddress({ request }: Upgrade): string {
  return (request.socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}
