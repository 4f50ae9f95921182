import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { ApiError } from '../errors/api-error.js';
import { ERROR_STATUS } from '../errors/error-status.js';
import { LOGGER } from '../logging/loggers.js';
import { reasonPhrase } from './reason-phrase.js';
import { pathOf } from './request-path.js';

/** One websocket upgrade request, for the route whose pattern its path matched. */
export interface Upgrade {
  readonly request: IncomingMessage;
  readonly socket: Duplex;
  readonly head: Buffer;
  /** The path's match: its groups are the route's placeholders, still percent-encoded. */
  readonly match: RegExpExecArray;
  readonly query: URLSearchParams;
}

/** Accepts the upgrade (or refuses it with `refuseUpgrade`), or throws an ApiError, which refuses it with the error's status and reason phrase. */
export type UpgradeHandler = (upgrade: Upgrade) => Promise<void>;

/** Takes an upgrade before any route (true: it answered, forwarding it to another replica or refusing it), or leaves it to the routes. */
export type UpgradeForwarder = (request: IncomingMessage, socket: Duplex, head: Buffer) => Promise<boolean>;

/**
 * The HTTPS server's websocket upgrades, which bypass Fastify's router: each area routes the paths
 * it upgrades here (the agent hub `/agent/v1`, the VNC console its `vncwebsocket`), and an upgrade
 * of any other path is refused with 404. One listener for them all, so that no area refuses
 * another's path.
 */
@Injectable()
export class WebSocketUpgrades implements OnApplicationBootstrap {
  private readonly routes: { readonly pattern: RegExp; readonly handler: UpgradeHandler }[] = [];
  private forwarder: UpgradeForwarder = () => Promise.resolve(false);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Upgrades of the paths `pattern` matches (anchor it) go to `handler`; the first route that matches takes the upgrade. */
  route(pattern: RegExp, handler: UpgradeHandler): void {
    this.routes.push({ pattern, handler });
  }

  /** Every upgrade is offered to `forwarder` first: the routing between replicas. */
  forwardWith(forwarder: UpgradeForwarder): void {
    this.forwarder = forwarder;
  }

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.upgrade(request, socket, head));
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    let url: URL;
    try {
      url = new URL(request.url ?? '', 'https://upgrade.invalid');
    } catch {
      return refuseUpgrade(socket, 400, 'Bad Request');
    }
    try {
      if (await this.forwarder(request, socket, head)) return;
    } catch (error) {
      this.logger.error({ err: error, path: url.pathname }, 'cannot forward a websocket upgrade');
      return refuseUpgrade(socket, 500, 'internal error');
    }
    for (const { pattern, handler } of this.routes) {
      const match = pattern.exec(url.pathname);
      if (!match) continue;
      try {
        await handler({ request, socket, head, match, query: url.searchParams });
      } catch (error) {
        if (error instanceof ApiError)
          return refuseUpgrade(socket, ERROR_STATUS[error.code], reasonPhrase(error.details.reason ?? error.message));
        this.logger.error({ err: error, path: pathOf(request.url ?? '') }, 'websocket upgrade failed');
        refuseUpgrade(socket, 500, 'internal error');
      }
      return;
    }
    refuseUpgrade(socket, 404, 'Not Found');
  }
}

/** An upgrade's query as the router gives a request's: a repeated key as a list (for `admit`). */
export function upgradeQuery(query: URLSearchParams): Record<string, string | string[]> {
  const values = [...new Set(query.keys())].map((key) => [key, query.getAll(key)] as const);
  return Object.fromEntries(values.map(([key, all]) => [key, all.length === 1 ? (all[0] ?? '') : all]));
}

/** Answers an upgrade request with an HTTP error instead of switching protocols. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
