import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { WebSocketServer, type WebSocket } from 'ws';
import { Authenticator } from '../../access/auth/authenticator.js';
import { AccessState } from '../../access/state/access-state.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import type { EventEntry } from '../../events/event-entry.js';
import type { ParamsOf } from '../../http/endpoint.js';
import { admit } from '../../access/auth/endpoint.guard.js';
import { API_PREFIX } from '../../http/endpoint-registry.js';
import { upgradeQuery, WebSocketUpgrades, type Upgrade } from '../../http/websocket-upgrades.js';
import { CLUSTER_EVENTS_ENDPOINTS } from './cluster-events.endpoints.js';
import { ClusterEventsService } from './cluster-events.service.js';
import { EventStreams, type StreamEnd, type StreamTransport } from './event-streams.js';

const DECLARATION = CLUSTER_EVENTS_ENDPOINTS.events;
const PATH = new RegExp(`^${API_PREFIX}${DECLARATION.path}$`);
/** Clients send nothing a stream reads. */
const MAX_MESSAGE_BYTES = 4096;
/** Past this many bytes queued for a client, its stream waits for them to go out. */
const HIGH_WATER_BYTES = 256 * 1024;
/** A close frame's reason has at most 123 bytes (RFC 6455 5.5). */
const MAX_REASON_BYTES = 123;

/** The close code of each way the control plane ends a stream (docs/events.md). */
export const EVENT_STREAM_CLOSE: Record<StreamEnd['kind'], number> = { expired: 4410, slow: 4008, shutdown: 1001, failed: 1011 };

/**
 * `GET /cluster/events` with `Upgrade: websocket`: the caller's usual credentials (ticket cookie,
 * API token, ...) and the parameters are checked from the endpoint's declaration, and the cursor
 * before the upgrade (a refusal is the HTTP status: 401, 400, 410); then each event is one text
 * message, a JSON object. Pings keep it alive through proxies and find a peer that is gone.
 */
@Injectable()
export class EventsWebsocket implements OnModuleDestroy {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  constructor(
    upgrades: WebSocketUpgrades,
    private readonly authenticator: Authenticator,
    private readonly access: AccessState,
    private readonly nodes: NodeView,
    private readonly events: ClusterEventsService,
    private readonly streams: EventStreams,
  ) {
    upgrades.route(PATH, (upgrade) => this.upgrade(upgrade));
  }

  onModuleDestroy(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async upgrade({ request, socket, head, query }: Upgrade): Promise<void> {
    const { principal, params } = await admit({ authenticator: this.authenticator, access: this.access, nodes: this.nodes }, DECLARATION, {
      method: request.method ?? 'GET',
      headers: request.headers,
      address: request.socket.remoteAddress ?? '',
      parts: { params: {}, query: upgradeQuery(query) },
    });
    const stream = await this.events.open(params as ParamsOf<typeof DECLARATION>, principal);
    this.server.handleUpgrade(request, socket, head, (client) => this.streams.run(new EventSocket(client), stream));
  }
}

class EventSocket implements StreamTransport {
  /** Resolves once the last message sent has gone out to the network. */
  private flushed: Promise<void> = Promise.resolve();
  private answered = true;

  constructor(private readonly socket: WebSocket) {
    socket.on('pong', () => (this.answered = true));
    // A broken connection also closes: the stream stops there.
    socket.on('error', () => undefined);
  }

  send(entry: EventEntry): boolean {
    this.flushed = new Promise((resolve) => this.socket.send(JSON.stringify(entry), () => resolve()));
    return this.socket.bufferedAmount <= HIGH_WATER_BYTES;
  }

  drained(): Promise<void> {
    return this.flushed;
  }

  heartbeat(): void {
    if (!this.answered) return void this.socket.terminate();
    this.answered = false;
    this.socket.ping();
  }

  end(why: StreamEnd): void {
    this.socket.close(EVENT_STREAM_CLOSE[why.kind], Buffer.from(why.message).subarray(0, MAX_REASON_BYTES).toString());
  }

  onClose(listener: () => void): void {
    this.socket.once('close', listener);
  }
}
