import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { pino } from 'pino';
import type { WebSocket } from 'ws';
import type { Upgrade } from '../http/websocket-upgrades.js';
import { AgentStreams } from './agent-streams.js';
import type { AgentUpgrades } from './agent-upgrades.js';

const STREAM_PATH = /^\/agent\/v1\/streams\/([^/]+)$/;

/** The streams, their upgrades authenticated as `node` (null: refused), and an agent's upgrade of a stream with what it became. */
function streamsOf(node: string | null) {
  const upgrades = {
    authenticate: async () => node,
    accept: (_upgrade: Upgrade, use: (socket: WebSocket) => void) => use({ stream: 'opened' } as unknown as WebSocket),
  } as unknown as AgentUpgrades;
  const streams = new AgentStreams(upgrades, pino({ level: 'silent' }));
  const open = async (id: string) => {
    const answered: string[] = [];
    const socket = { end: (text: string) => void answered.push(text) } as unknown as Duplex;
    const match = STREAM_PATH.exec(`/agent/v1/streams/${id}`) as RegExpExecArray;
    await streams.open({ request: {} as IncomingMessage, socket, head: Buffer.alloc(0), match, query: new URLSearchParams() });
    return answered;
  };
  return { streams, open };
}

const NOT_FOUND = 'HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

describe("the agents' byte streams", () => {
  it('hands the websocket of an awaited stream, opened by its node, to the one awaiting it, once', async () => {
    const { streams, open } = streamsOf('alpha');
    const accepted: WebSocket[] = [];
    streams.expect('alpha', 's1', (socket) => accepted.push(socket));
    expect(await open('s1')).toEqual([]);
    expect(accepted).toEqual([{ stream: 'opened' }]);
    expect(await open('s1')).toEqual([NOT_FOUND]);
    expect(accepted).toHaveLength(1);
  });

  it('refuses with 404 a stream awaited from another node, or no longer awaited', async () => {
    const { streams, open } = streamsOf('alpha');
    const accept = jest.fn();
    streams.expect('beta', 's1', accept);
    expect(await open('s1')).toEqual([NOT_FOUND]);
    const stop = streams.expect('alpha', 's2', accept);
    stop();
    expect(await open('s2')).toEqual([NOT_FOUND]);
    expect(accept).not.toHaveBeenCalled();
  });

  it('keeps the newer wait for the same id when an older one is stopped', async () => {
    const { streams, open } = streamsOf('alpha');
    const stopOlder = streams.expect('alpha', 's1', jest.fn());
    const newer = jest.fn();
    streams.expect('alpha', 's1', newer);
    stopOlder();
    expect(await open('s1')).toEqual([]);
    expect(newer).toHaveBeenCalledTimes(1);
  });

  it('leaves an upgrade whose credential was refused as it was answered', async () => {
    const { streams, open } = streamsOf(null);
    const accept = jest.fn();
    streams.expect('alpha', 's1', accept);
    expect(await open('s1')).toEqual([]);
    expect(accept).not.toHaveBeenCalled();
  });
});
