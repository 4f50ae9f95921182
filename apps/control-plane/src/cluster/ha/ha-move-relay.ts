import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ApiError } from '../../errors/api-error.js';
import { SYSTEM_CALLER } from '../../http/principal.js';
import { REPLICA_ERROR_FORMAT, replicaRoute } from '../../http/replica-route.js';
import { writeError } from '../../http/socket-answer.js';
import { JSON_CONTENT_TYPE } from '../../http/json-content-type.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { ReplicaDirectory } from '../../replicas/replica-directory.js';
import { ReplicaPeers } from '../../replicas/replica-peers.js';
import { HaMoves } from './ha-moves.service.js';

/** Where a replica takes the HA manager's moves of guests whose node it holds (not under the API's prefix: never forwarded). */
export const HA_MOVE_RELAY_PATH = '/internal/v1/ha-moves';

const RelayedMove = z.strictObject({
  type: z.enum(['vm', 'ct']),
  vmid: z.int().positive(),
  target: z.string().min(1),
  how: z.enum(['migrate', 'relocate']),
});
type RelayedMove = z.infer<typeof RelayedMove>;

/**
 * The HA manager's moves (failback) across replicas: a guest's move is a task on its queue, which
 * lives on the replica holding the guest's node. The manager, wherever it runs, starts the move
 * there: here when this replica holds the node, else through a signed request to the replica that
 * does, which starts it as the system (root@pam), as the manager would. A request to that path
 * without a valid signature is refused with 401.
 */
@Injectable()
export class HaMoveRelay implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly moves: HaMoves,
    private readonly view: GuestView,
    private readonly directory: ReplicaDirectory,
    private readonly peers: ReplicaPeers,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    replicaRoute(fastify, HA_MOVE_RELAY_PATH, 'only control-plane replicas relay HA moves', (request, response) =>
      this.take(request, response),
    );
  }

  /** Starts the HA manager's move of the guest on the replica holding its node. */
  async move(move: RelayedMove): Promise<void> {
    const node = this.view.get(move.vmid)?.row.node;
    const holder = node === undefined || !this.peers.enabled ? null : this.directory.holderElsewhere(node);
    if (holder === null) {
      await this.moves.move({ type: move.type, vmid: move.vmid }, move.target, move.how, SYSTEM_CALLER);
      return;
    }
    const address = await this.directory.address(holder);
    if (address === null)
      throw new ApiError('NODE_UNAVAILABLE', `node '${node}' is connected to another control-plane replica, which is gone`);
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = this.peers.request(address, 'POST', HA_MOVE_RELAY_PATH, { 'content-type': JSON_CONTENT_TYPE }, 'replica');
      request.once('response', resolve);
      request.once('error', reject);
      request.end(JSON.stringify(move));
    });
    answer.resume();
    if (answer.statusCode !== 200)
      throw new ApiError(
        'NODE_UNAVAILABLE',
        `the replica holding node '${node}' refused the move: ${answer.statusCode ?? 0} ${answer.statusMessage ?? ''}`,
      );
  }

  private async take(request: FastifyRequest, response: ServerResponse): Promise<void> {
    const body = RelayedMove.safeParse(request.body);
    if (!body.success) return writeError(response, REPLICA_ERROR_FORMAT, new ApiError('INVALID_PARAMETERS', 'malformed relayed HA move'));
    const { type, vmid, target, how } = body.data;
    try {
      await this.moves.move({ type, vmid }, target, how, SYSTEM_CALLER);
    } catch (error) {
      return writeError(response, REPLICA_ERROR_FORMAT, error instanceof ApiError ? error : new ApiError('INTERNAL', String(error)));
    }
    response.writeHead(200, { 'content-type': JSON_CONTENT_TYPE, 'content-length': 2 });
    response.end('{}');
  }
}
