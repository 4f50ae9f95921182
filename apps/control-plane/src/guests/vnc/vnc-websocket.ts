import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { Authenticator } from '../../access/auth/authenticator.js';
import { callerName } from '../../http/principal.js';
import { AccessState } from '../../access/state/access-state.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import { ApiError } from '../../errors/api-error.js';
import type { ParamsOf } from '../../http/endpoint.js';
import { admit } from '../../access/auth/endpoint.guard.js';
import { API_PREFIX } from '../../http/endpoint-registry.js';
import { placeholders } from '../../http/path-template.js';
import { upgradeQuery, WebSocketUpgrades, type Upgrade } from '../../http/websocket-upgrades.js';
import { LOGGER } from '../../logging/loggers.js';
import { VncSessions } from './vnc-sessions.js';
import { VNC_ENDPOINTS } from './vnc.endpoints.js';

const DECLARATION = VNC_ENDPOINTS.websocket;
const PLACEHOLDERS = placeholders(DECLARATION.path);
const PATH = new RegExp(`^${API_PREFIX}${DECLARATION.path.replace(/\{[^}]+\}/g, '([^/]+)')}$`);
/** A client's message to the display (a key, a pointer move, a clipboard text) is small. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * `GET /nodes/{node}/qemu/{vmid}/vncwebsocket` with `Upgrade: websocket` (PVE's pveproxy serves it
 * the same way): the caller's usual credentials (ticket cookie, API token, ...), the parameters and
 * VM.Console are checked as for any endpoint, from the same declaration; then the one-time
 * `vncticket` must be this caller's, for this VM and `port`. The upgraded websocket becomes the
 * client side of the ticket's console.
 */
@Injectable()
export class VncWebsocket implements OnModuleDestroy {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  constructor(
    upgrades: WebSocketUpgrades,
    private readonly authenticator: Authenticator,
    private readonly access: AccessState,
    private readonly nodes: NodeView,
    private readonly sessions: VncSessions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    upgrades.route(PATH, (upgrade) => this.upgrade(upgrade));
  }

  onModuleDestroy(): Promise<void> {
    for (const socket of this.server.clients) socket.close(1001, 'the control plane is shutting down');
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async upgrade({ request, socket, head, match, query }: Upgrade): Promise<void> {
    const path = Object.fromEntries(PLACEHOLDERS.map((name, i) => [name, pathSegment(match[i + 1] ?? '')]));
    const { principal, params } = await admit({ authenticator: this.authenticator, access: this.access, nodes: this.nodes }, DECLARATION, {
      method: request.method ?? 'GET',
      headers: request.headers,
      address: request.socket.remoteAddress ?? '',
      parts: { params: path, query: upgradeQuery(query) },
    });
    const { node, vmid, port, vncticket } = params as ParamsOf<typeof DECLARATION>;
    const user = callerName(principal);
    const session = this.sessions.redeem(vncticket, { user, node, vmid, port });
    this.server.handleUpgrade(request, socket, head, (client) => {
      session.attachClient(client);
      this.logger.info({ node, vmid, user, address: request.socket.remoteAddress }, 'VNC client connected');
    });
  }
}

function pathSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError('MALFORMED_REQUEST', `malformed request: the path segment '${raw}' is not percent-encoded correctly`);
  }
}
