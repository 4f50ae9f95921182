import { ApiFailure, ConnectionFailure } from '../http/api-failure.js';
import { followEvents, type StreamedEvent } from './follow-events.js';
import type { ServerSentEvent } from './server-sent-events.js';

const event = (seq: number, kind = 'vm-start'): ServerSentEvent => ({
  id: String(seq),
  event: kind,
  data: JSON.stringify({ seq, event: kind, node: 'pve1', vmid: 100, timestamp: '2026-05-04T09:31:02.000Z' }),
});
const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

/** One connection: the messages it gives, then how it ends (a thrown error, or nothing: the server closed it). */
type Connection = { messages?: ServerSentEvent[]; then?: Error } | Error;

async function follow(since: number | undefined, connections: Connection[]) {
  const opened: (number | undefined)[] = [];
  const printed: number[] = [];
  const said: string[] = [];
  const waits: number[] = [];
  const error = await followEvents({
    since,
    open: (after) => {
      opened.push(after);
      const next = connections.shift();
      if (next === undefined) return Promise.reject(new ApiFailure(401, ['authentication failed']));
      if (next instanceof Error) return Promise.reject(next);
      return Promise.resolve(
        (async function* () {
          yield* next.messages ?? [];
          if (next.then) throw next.then;
        })(),
      );
    },
    print: (printedEvent: StreamedEvent) => printed.push(printedEvent.seq),
    say: (text) => said.push(text),
    wait: (ms) => Promise.resolve(void waits.push(ms)),
  }).catch((thrown: unknown) => thrown);
  return { error, opened, printed, said, waits };
}

describe('following the event stream across reconnects', () => {
  it('resumes after the last event it printed, so nothing is printed twice or missed, backing off while the control plane is away', async () => {
    const result = await follow(undefined, [
      { messages: [{ id: '10' }, event(11), event(12)], then: reset() },
      new ConnectionFailure('cannot reach https://127.0.0.1:8006: connect ECONNREFUSED'),
      new ApiFailure(503, ['the control plane is shutting down']),
      { messages: [{ id: '12' }, event(13)] },
    ]);
    expect(result.opened).toEqual([undefined, 12, 12, 12, 13]);
    expect(result.printed).toEqual([11, 12, 13]);
    expect(result.waits).toEqual([1000, 2000, 4000, 1000]);
    expect(result.said).toEqual([
      'following the events after seq 10',
      'read ECONNRESET; reconnecting in 1 s, after seq 12',
      'cannot reach https://127.0.0.1:8006: connect ECONNREFUSED; reconnecting in 2 s, after seq 12',
      '503 the control plane is shutting down; reconnecting in 4 s, after seq 12',
      'following the events after seq 12',
      'the control plane ended the stream; reconnecting in 1 s, after seq 13',
    ]);
  });

  it('resumes after the cursor the stream opened at when no event came before the connection was lost', async () => {
    const result = await follow(undefined, [{ messages: [{ id: '41' }], then: reset() }, { messages: [event(42)] }]);
    expect(result.opened).toEqual([undefined, 41, 42]);
    expect(result.printed).toEqual([42]);
  });

  it("reconnects when the control plane ends the stream for its shutdown, and stops with the 410 when the stream's next events were deleted", async () => {
    const shutdown = { event: 'end', data: JSON.stringify({ status: 503, message: 'the control plane is shutting down' }) };
    const expired = {
      event: 'end',
      data: JSON.stringify({ status: 410, message: 'events after 5 were deleted (retention): the oldest available is 9' }),
    };
    const result = await follow(5, [{ messages: [event(6), shutdown] }, { messages: [expired] }]);
    expect(result.opened).toEqual([5, 6]);
    expect(result.said).toEqual([
      'the control plane ended the stream: the control plane is shutting down; reconnecting in 1 s, after seq 6',
    ]);
    expect(result.error).toEqual(new ApiFailure(410, ['events after 5 were deleted (retention): the oldest available is 9']));
  });

  it('stops at once when the first connection fails, or a later one is refused with a 4xx', async () => {
    const unreachable = new ConnectionFailure('cannot reach https://127.0.0.1:8006: connect ECONNREFUSED');
    expect(await follow(undefined, [unreachable])).toEqual(expect.objectContaining({ error: unreachable, waits: [] }));
    const refused = await follow(3, [{ messages: [event(4)], then: reset() }, new ApiFailure(410, ['events after 4 were deleted'])]);
    expect(refused.error).toEqual(new ApiFailure(410, ['events after 4 were deleted']));
    expect(refused.opened).toEqual([3, 4]);
  });
});
