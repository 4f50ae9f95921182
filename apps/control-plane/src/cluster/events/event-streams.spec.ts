import { pino } from 'pino';
import type { Principal } from '../../http/principal.js';
import { ApiError } from '../../errors/api-error.js';
import type { EventEntry } from '../../events/event-entry.js';
import type { ClusterEventsService } from './cluster-events.service.js';
import { EventStreams, HEARTBEAT_MS, type StreamEnd, type StreamTransport } from './event-streams.js';

const entry = (seq: number): EventEntry => ({
  seq,
  id: `id-${seq}`,
  event: 'vm-start',
  node: 'pve1',
  vmid: 100,
  timestamp: '2026-05-04T09:31:02.000Z',
  details: {},
});
const STREAM = { start: 10, filter: {}, caller: {} as Principal };

/** A client's connection: whether it takes more (`full`), what it got, and how it ended. */
class FakeTransport implements StreamTransport {
  readonly sent: number[] = [];
  heartbeats = 0;
  ended: StreamEnd | null = null;
  full = false;
  private drain: (() => void) | null = null;
  private readonly closeListeners: (() => void)[] = [];

  send(event: EventEntry): boolean {
    this.sent.push(event.seq);
    return !this.full;
  }

  drained(): Promise<void> {
    return new Promise((resolve) => (this.drain = resolve));
  }

  /** The client read what was waiting. */
  read(): void {
    this.full = false;
    this.drain?.();
  }

  heartbeat(): void {
    this.heartbeats += 1;
  }

  end(why: StreamEnd): void {
    this.ended = why;
    this.close();
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  close(): void {
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}

/** The service's follow: sends `events` (each after the previous one was taken), then `then` throws or it waits until the stream closes. */
function streamsOf(events: readonly EventEntry[], then?: Error): EventStreams {
  const service = {
    follow: async (_stream: unknown, send: (event: EventEntry) => Promise<void>, signal: AbortSignal) => {
      for (const event of events) await send(event);
      if (then) throw then;
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
    },
  };
  return new EventStreams(service as unknown as ClusterEventsService, pino({ level: 'silent' }));
}

describe('the event streams of a replica', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('waits for a client whose buffer is full, and drops it after 30 s without a drain, telling it where to resume', async () => {
    const transport = new FakeTransport();
    transport.full = true;
    streamsOf([entry(11), entry(12), entry(13)]).run(transport, STREAM);
    await jest.advanceTimersByTimeAsync(29_000);
    expect(transport.sent).toEqual([11]);
    transport.read();
    transport.full = true;
    await jest.advanceTimersByTimeAsync(0);
    expect(transport.sent).toEqual([11, 12]);
    await jest.advanceTimersByTimeAsync(30_000);
    expect(transport.ended).toEqual({ kind: 'slow', message: 'too slow: events came faster than they were read; resume with since=12' });
    expect(transport.sent).toEqual([11, 12]);
  });

  it('sends a heartbeat every 15 s until the stream closes', async () => {
    const transport = new FakeTransport();
    streamsOf([]).run(transport, STREAM);
    await jest.advanceTimersByTimeAsync(2 * HEARTBEAT_MS);
    expect(transport.heartbeats).toBe(2);
    transport.close();
    await jest.advanceTimersByTimeAsync(2 * HEARTBEAT_MS);
    expect(transport.heartbeats).toBe(2);
  });

  it('ends a stream whose next events were deleted with their 410 message, and one that failed as internal', async () => {
    const expired = new FakeTransport();
    streamsOf([entry(11)], new ApiError('CURSOR_EXPIRED', 'events after 11 were deleted (retention): the oldest available is 20')).run(
      expired,
      STREAM,
    );
    const failed = new FakeTransport();
    streamsOf([], new Error('connection terminated')).run(failed, STREAM);
    await jest.advanceTimersByTimeAsync(0);
    expect(expired.ended).toEqual({ kind: 'expired', message: 'events after 11 were deleted (retention): the oldest available is 20' });
    expect(failed.ended).toEqual({ kind: 'failed', message: 'internal error' });
  });

  it('ends every open stream when the control plane shuts down', async () => {
    const streams = streamsOf([]);
    const open = [new FakeTransport(), new FakeTransport()];
    const gone = new FakeTransport();
    for (const transport of [...open, gone]) streams.run(transport, STREAM);
    gone.close();
    streams.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(0);
    expect(open.map((transport) => transport.ended)).toEqual([
      { kind: 'shutdown', message: 'the control plane is shutting down' },
      { kind: 'shutdown', message: 'the control plane is shutting down' },
    ]);
    expect(gone.ended).toBeNull();
  });
});
