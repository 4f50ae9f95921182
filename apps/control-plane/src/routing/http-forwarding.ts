import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { CONFIG, type ErrorFormat, type Config } from '../config/config.js';
import { ApiError } from '../errors/api-error.js';
import { clientAddress } from '../http/client-address.js';
import { answerUnreadBody, writeError } from '../http/socket-answer.js';
import { pathOf } from '../http/request-path.js';
import { LOGGER } from '../logging/loggers.js';
import { ReplicaPeers } from '../replicas/replica-peers.js';
import { ForwardTargets, type Route } from './forward-targets.js';
import { endToEnd } from './hop-headers.js';

/**
 * Forwards each HTTP request for a node whose agent another replica holds to that replica, before
 * anything of it is read here (ForwardTargets decides): the body streams on as it arrives, and the
 * answer streams back with its status, reason phrase and headers, so an upload, a `?wait=` long
 * poll or a large download pass through as they are. The client closing its connection ends the
 * forwarded request.
 */
@Injectable()
export class HttpForwarding implements OnModuleInit {
  private readonly format: ErrorFormat;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly targets: ForwardTargets,
    private readonly peers: ReplicaPeers,
    @Inject(CONFIG) config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.format = config.errorFormat;
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply, done) => {
      const route = this.targets.route(request.method, request.url, request.headers);
      if (route === null) return done();
      if (route instanceof Promise)
        return void route.then(
          (decided) => this.follow(decided, request, reply, done),
          (error: unknown) => {
            // Served here then: the request gets this replica's own answer for a node it does not hold.
            this.logger.warn({ err: error, path: pathOf(request.url) }, 'cannot look up the replica holding a node');
            done();
          },
        );
      this.follow(route, request, reply, done);
    });
  }

  private follow(route: Route, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    if (route.kind === 'refused') return answerUnreadBody(reply, this.format, route.error);
    if (route.kind === 'forward') return this.forward(request, reply, route.node, route.address);
    if (route.forwarded) request.corralForwardedFor = route.forwarded.client;
    done();
  }

  private forward(request: FastifyRequest, reply: FastifyReply, node: string, address: string): void {
    reply.hijack();
    const response = reply.raw;
    const upstream = this.peers.request(address, request.method, request.url, endToEnd(request.headers), clientAddress(request));
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage ?? '', endToEnd(answer.headers));
      answer.pipe(response);
      answer.once('aborted', () => response.destroy());
    });
    upstream.on('error', (error) => {
      if (response.headersSent) return void response.destroy();
      this.logger.warn(
        { err: error, node, replica: address, path: pathOf(request.url) },
        'cannot forward a request to the replica holding the node',
      );
      writeError(
        response,
        this.format,
        new ApiError(
          'NODE_UNAVAILABLE',
          `node '${node}' is connected to another control-plane replica, which cannot be reached (${error.message})`,
        ),
      );
    });
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.raw.pipe(upstream);
  }
}
