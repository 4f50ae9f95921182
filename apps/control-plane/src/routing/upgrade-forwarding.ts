import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { ERROR_STATUS } from '../errors/error-status.js';
import { reasonPhrase } from '../http/reason-phrase.js';
import { refuseUpgrade, WebSocketUpgrades } from '../http/websocket-upgrades.js';
import { LOGGER } from '../logging/loggers.js';
import { ReplicaPeers } from '../replicas/replica-peers.js';
import { ForwardTargets } from './forward-targets.js';
import { endToEnd } from './hop-headers.js';

/**
 * Forwards a websocket upgrade for a node whose agent another replica holds (a VNC console's
 * `vncwebsocket`) to that replica, as HttpForwarding does a request: once the replica switched
 * protocols, the bytes flow both ways between the client and it, and either end closing closes both.
 */
@Injectable()
export class UpgradeForwarding implements OnModuleInit {
  constructor(
    private readonly upgrades: WebSocketUpgrades,
    private readonly targets: ForwardTargets,
    private readonly peers: ReplicaPeers,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.upgrades.forwardWith((request, socket, head) => this.take(request, socket, head));
  }

  /** True when the upgrade was forwarded or refused here; false leaves it to the routes. */
  private async take(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<boolean> {
    const url = request.url ?? '';
    const route = await this.targets.route(request.method ?? 'GET', url, request.headers);
    if (route === null || route.kind === 'here') return false;
    if (route.kind === 'refused') {
      refuseUpgrade(socket, ERROR_STATUS[route.error.code], reasonPhrase(route.error.message));
      return true;
    }
    const client = request.socket.remoteAddress ?? '';
    const upstream = this.peers.request(route.address, request.method ?? 'GET', url, endToEnd(request.headers, { upgrade: true }), client);
    upstream.on('upgrade', (answer, peer, peerHead) => {
      const lines = [`HTTP/1.1 101 ${answer.statusMessage ?? 'Switching Protocols'}`];
      for (let index = 0; index < answer.rawHeaders.length; index += 2)
        lines.push(`${answer.rawHeaders[index]}: ${answer.rawHeaders[index + 1]}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (peerHead.length > 0) socket.write(peerHead);
      if (head.length > 0) peer.write(head);
      const closeBoth = () => {
        socket.destroy();
        peer.destroy();
      };
      socket.on('error', closeBoth).on('close', closeBoth);
      peer.on('error', closeBoth).on('close', closeBoth);
      peer.pipe(socket).pipe(peer);
    });
    upstream.on('response', (answer) => {
      answer.resume();
      refuseUpgrade(socket, answer.statusCode ?? 502, answer.statusMessage ?? 'Bad Gateway');
    });
    upstream.on('error', (error) => {
      this.logger.warn({ err: error, node: route.node }, 'cannot forward a websocket upgrade to the replica holding the node');
      refuseUpgrade(
        socket,
        503,
        reasonPhrase(`node '${route.node}' is connected to another control-plane replica, which cannot be reached`),
      );
    });
    upstream.end();
    return true;
  }
}
