import { Controller, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Caller, type Principal } from '../../http/principal.js';
import { Endpoint, type ParamsOf, type ResultOf } from '../../http/endpoint.js';
import { Params } from '../../http/request-params.js';
import { CLUSTER_EVENTS_ENDPOINTS } from './cluster-events.endpoints.js';
import { ClusterEventsService } from './cluster-events.service.js';
import { ServerSentEvents, wantsEventStream } from './server-sent-events.js';

type Endpoints = typeof CLUSTER_EVENTS_ENDPOINTS;

/** `GET /cluster/events` as JSON or as server-sent events (EventsWebsocket takes its websocket upgrades). */
@Controller()
export class ClusterEventsController {
  constructor(
    private readonly events: ClusterEventsService,
    private readonly sse: ServerSentEvents,
  ) {}

  @Endpoint(CLUSTER_EVENTS_ENDPOINTS.events)
  async list(
    @Params() p: ParamsOf<Endpoints['events']>,
    @Caller() caller: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResultOf<Endpoints['events']>> {
    if (!wantsEventStream(request)) return this.events.list(p, caller);
    await this.sse.serve(p, caller, request, reply);
    // The response is the stream's now: nothing of this reaches the client.
    return [];
  }
}
