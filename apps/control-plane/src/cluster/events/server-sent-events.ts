import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Principal } from '../../http/principal.js';
import type { EventEntry } from '../../events/event-entry.js';
import type { ParamsOf } from '../../http/endpoint.js';
import type { CLUSTER_EVENTS_ENDPOINTS } from './cluster-events.endpoints.js';
import { ClusterEventsService } from './cluster-events.service.js';
import { EventStreams, type StreamEnd, type StreamTransport } from './event-streams.js';

/** How long an EventSource waits before it reconnects (with Last-Event-ID). */
const RETRY_MS = 3000;
/** The status each end reports in its final `end` event. */
const END_STATUS: Record<Exclude<StreamEnd['kind'], 'slow'>, number> = { expired: 410, shutdown: 503, failed: 500 };

/** Whether the request asks for server-sent events rather than JSON (a HEAD gets the JSON answer's headers). */
export function wantsEventStream(request: FastifyRequest): boolean {
  return request.method === 'GET' && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(request.headers.accept ?? '');
}

/**
 * `GET /cluster/events` with `Accept: text/event-stream` (the WHATWG format EventSource reads):
 * each event as `id: <seq>`, `event: <kind>`, `data: <JSON>`, a comment line as heartbeat, and a
 * reconnecting client's Last-Event-ID as its cursor (the first message, without data, gives the
 * cursor the stream starts at). A stream the control plane ends gets a last `end` event whose
 * data has the HTTP status and message that say why.
 */
@Injectable()
export class ServerSentEvents {
  constructor(
    private readonly events: ClusterEventsService,
    private readonly streams: EventStreams,
  ) {}

  /** Checks the cursor (errors still get the JSON envelope), then takes the response over from the framework and streams into it. */
  async serve(
    p: ParamsOf<(typeof CLUSTER_EVENTS_ENDPOINTS)['events']>,
    caller: Principal,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const lastEventId = request.headers['last-event-id'];
    const stream = await this.events.open(p, caller, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId);
    reply.hijack();
    this.streams.run(new EventStreamResponse(reply.raw, stream.start), stream);
  }
}

class EventStreamResponse implements StreamTransport {
  constructor(
    private readonly response: ServerResponse,
    start: number,
  ) {
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    // Sent at once: the client knows the stream is open, and its last event id is where the stream
    // starts, so a reconnect before the first event misses nothing (a message without data sets the
    // id; EventSource dispatches nothing for it).
    response.write(`retry: ${RETRY_MS}\nid: ${start}\n\n`);
  }

  send(entry: EventEntry): boolean {
    return this.write(`id: ${entry.seq}\nevent: ${entry.event}\ndata: ${JSON.stringify(entry)}\n\n`);
  }

  drained(): Promise<void> {
    return new Promise((resolve) => this.response.once('drain', resolve));
  }

  heartbeat(): void {
    this.write(':\n\n');
  }

  end(why: StreamEnd): void {
    // A slow client's buffer is full: nothing more reaches it.
    if (why.kind === 'slow') return void this.response.destroy();
    this.response.end(`event: end\ndata: ${JSON.stringify({ status: END_STATUS[why.kind], message: why.message })}\n\n`);
  }

  onClose(listener: () => void): void {
    this.response.once('close', listener);
  }

  /** Nothing is written once the response is ended or destroyed (its stream stops when it closes). */
  private write(text: string): boolean {
    return this.response.writableEnded || this.response.destroyed || this.response.write(text);
  }
}
