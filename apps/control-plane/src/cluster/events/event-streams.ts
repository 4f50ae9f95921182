import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { ApiError } from '../../errors/api-error.js';
import type { EventEntry } from '../../events/event-entry.js';
import { LOGGER } from '../../logging/loggers.js';
import { ClusterEventsService, type StreamRequest } from './cluster-events.service.js';

/** How often a stream shows it is alive while no event comes: proxies cut connections that stay silent for a minute or so. */
export const HEARTBEAT_MS = 15_000;
/** A client whose buffer does not drain for this long reads slower than events come: it is dropped (it resumes from its last seq) rather than buffered for. */
const SLOW_CLIENT_MS = 30_000;

/** Why the control plane ends a stream: retention deleted what it was to send next, its client read too slowly, the control plane stops, or a failure. */
export interface StreamEnd {
  readonly kind: 'expired' | 'slow' | 'shutdown' | 'failed';
  readonly message: string;
}

/** One stream's connection to its client: a websocket, or a server-sent events response. */
export interface StreamTransport {
  /** Sends one event; false when the client's buffer is past its mark, until `drained` resolves. */
  send(entry: EventEntry): boolean;
  drained(): Promise<void>;
  /** Keeps an idle connection alive through proxies (and finds a websocket peer that stopped answering). */
  heartbeat(): void;
  /** Ends the connection, telling the client why where the transport can. */
  end(why: StreamEnd): void;
  /** Called once the connection is closed, from either side. */
  onClose(listener: () => void): void;
}

class TooSlow extends Error {}

/**
 * Runs the event streams of this replica, whatever their transport: each follows its events with
 * backpressure (memory per connection is bounded by the transport's buffer mark), sends a
 * heartbeat while idle, and is ended when the control plane shuts down.
 */
@Injectable()
export class EventStreams implements OnModuleDestroy {
  private readonly open = new Set<StreamTransport>();

  constructor(
    private readonly events: ClusterEventsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  run(transport: StreamTransport, stream: StreamRequest): void {
    const closed = new AbortController();
    this.open.add(transport);
    transport.onClose(() => {
      this.open.delete(transport);
      closed.abort();
    });
    const heartbeat = setInterval(() => transport.heartbeat(), HEARTBEAT_MS);
    heartbeat.unref();
    let last = stream.start;
    const send = async (entry: EventEntry): Promise<void> => {
      const more = transport.send(entry);
      last = entry.seq;
      if (!more && !(await drainedInTime(transport, closed.signal))) throw new TooSlow();
    };
    this.events
      .follow(stream, send, closed.signal)
      .catch((error: unknown) => {
        if (closed.signal.aborted) return;
        if (error instanceof TooSlow)
          return transport.end({ kind: 'slow', message: `too slow: events came faster than they were read; resume with since=${last}` });
        if (error instanceof ApiError && error.code === 'CURSOR_EXPIRED') return transport.end({ kind: 'expired', message: error.message });
        this.logger.error({ err: error }, 'an event stream failed');
        transport.end({ kind: 'failed', message: 'internal error' });
      })
      .finally(() => clearInterval(heartbeat));
  }

  onModuleDestroy(): void {
    for (const transport of this.open) transport.end({ kind: 'shutdown', message: 'the control plane is shutting down' });
  }
}

/** Whether the transport drained within SLOW_CLIENT_MS (a closed one counts as drained: its stream stops anyway). */
function drainedInTime(transport: StreamTransport, closed: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (drained: boolean) => {
      clearTimeout(timer);
      closed.removeEventListener('abort', gone);
      resolve(drained);
    };
    const gone = () => done(true);
    const timer = setTimeout(() => done(false), SLOW_CLIENT_MS);
    closed.addEventListener('abort', gone, { once: true });
    transport.drained().then(gone, gone);
  });
}
