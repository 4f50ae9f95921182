import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { parseCommandRequest, type CommandName, type ParamsOf } from '@corral/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AgentHub } from '../agents/agent-hub.js';
import { AGENT_RELAY_PATH, type RelayLine } from '../agents/remote-agents.js';
import { ApiError } from '../errors/api-error.js';
import { REPLICA_ERROR_FORMAT, replicaRoute } from '../http/replica-route.js';
import { writeError } from '../http/socket-answer.js';
import { LOGGER } from '../logging/loggers.js';

const RelayedRequest = z.strictObject({
  node: z.string().min(1),
  command: z.string().min(1),
  params: z.unknown(),
  timeoutMs: z.number().int().positive(),
  upid: z.string().optional(),
  step: z.string().optional(),
});

/**
 * Runs the agent commands another replica relays to the agents this one holds (RemoteAgents is
 * the other end): only for a request a replica signed (replicaRoute), each
 * command checked against the catalog, its output lines and then its answer streamed back as
 * newline-delimited JSON. The relaying replica closing the request cancels the command.
 */
@Injectable()
export class AgentRelay implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly hub: AgentHub,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    replicaRoute(fastify, AGENT_RELAY_PATH, 'only control-plane replicas relay agent commands', (request, response) =>
      this.relay(request, response),
    );
  }

  private async relay(request: FastifyRequest, response: ServerResponse): Promise<void> {
    const body = RelayedRequest.safeParse(request.body);
    const parsed = body.success ? parseCommandRequest(body.data) : null;
    if (!body.success || !parsed?.ok)
      return writeError(
        response,
        REPLICA_ERROR_FORMAT,
        new ApiError('INVALID_PARAMETERS', `malformed relayed command: ${parsed?.ok === false ? parsed.message : 'bad body'}`),
      );
    const { node, timeoutMs, upid, step } = body.data;
    if (!this.hub.holds(node))
      return writeError(
        response,
        REPLICA_ERROR_FORMAT,
        new ApiError('NODE_UNAVAILABLE', `this replica does not hold the agent of node '${node}'`),
      );
    const { command, params } = parsed.request;
    const stop = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) stop.abort(new ApiError('NODE_UNAVAILABLE', `the replica that relayed ${command} went away`));
    });
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const send = (line: RelayLine) => response.write(`${JSON.stringify(line)}\n`);
    try {
      const result = await this.hub.request(node, command as CommandName, params as ParamsOf<CommandName>, {
        timeoutMs,
        ...(upid ? { upid } : {}),
        ...(step ? { step } : {}),
        onLog: (log) => send({ log }),
        signal: stop.signal,
      });
      send({ result });
    } catch (error) {
      const failure =
        error instanceof ApiError ? { code: error.code, message: error.message } : { code: 'INTERNAL', message: String(error) };
      if (!(error instanceof ApiError)) this.logger.error({ err: error, node, command }, 'a relayed agent command failed unexpectedly');
      send({ failure });
    }
    response.end();
  }
}
