import { request } from 'node:https';
import WebSocket from 'ws';
import type { TestApp } from '../../../test-support/test-app.js';
import type { EventEntry } from '../../events/event-entry.js';

/** The clients of `/cluster/events` the stream's integration tests follow it with. */

const PATH = '/api2/json/cluster/events';

/** One block of a server-sent events stream, its fields as sent. */
export interface SseBlock {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
}

export interface SseClient {
  readonly status: number;
  /** Everything received, as it came. */
  readonly text: () => string;
  /** The blocks that carry an event or the final `end`, parsed. */
  readonly blocks: () => SseBlock[];
  /** The events received, in order. */
  readonly events: () => EventEntry[];
  readonly ended: () => boolean;
  close(): void;
}

/** Opens the stream as server-sent events with these query parameters and headers (an auth header, Last-Event-ID). */
export function openSse(t: TestApp, query: Record<string, string>, headers: Record<string, string>): Promise<SseClient> {
  const url = new URL(`${t.api.baseUrl.replace(/\/api2\/json$/, '')}${PATH}?${new URLSearchParams(query).toString()}`);
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: t.cert, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let text = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (ended = true));
      res.on('close', () => (ended = true));
      const blocks = () =>
        text
          .split('\n\n')
          .slice(0, -1)
          .map(
            (block) =>
              Object.fromEntries(
                block
                  .split('\n')
                  .flatMap((line) =>
                    /^[a-z]+: /.test(line) ? [[line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]] : [],
                  ),
              ) as SseBlock,
          )
          .filter((block) => block.data !== undefined);
      resolve({
        status: res.statusCode ?? 0,
        text: () => text,
        blocks,
        events: () =>
          blocks().flatMap((block) => (block.event === 'end' || block.data === undefined ? [] : [JSON.parse(block.data) as EventEntry])),
        ended: () => ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

export interface WsClient {
  readonly socket: WebSocket;
  readonly events: EventEntry[];
  closed: { code: number; reason: string } | null;
}

/** Opens the stream as a websocket; resolves with the HTTP status when the upgrade is refused. */
export function openWebsocket(t: TestApp, query: Record<string, string>, headers: Record<string, string>): Promise<WsClient | number> {
  const url = `${t.agentUrl.replace(/\/agent\/v1$/, '')}${PATH}?${new URLSearchParams(query).toString()}`;
  const socket = new WebSocket(url, { ca: t.cert, headers });
  return new Promise((resolve, reject) => {
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('open', () => {
      const client: WsClient = { socket, events: [], closed: null };
      socket.on('message', (data: Buffer) => client.events.push(JSON.parse(data.toString('utf8')) as EventEntry));
      socket.on('close', (code, reason) => (client.closed = { code, reason: reason.toString() }));
      resolve(client);
    });
    socket.once('error', reject);
  });
}

export function opened(client: WsClient | number): WsClient {
  if (typeof client === 'number') throw new Error(`the upgrade was refused with ${client}`);
  return client;
}
