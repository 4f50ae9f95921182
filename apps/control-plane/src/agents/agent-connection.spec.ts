import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { AgentConnection, type ConnectionEvents } from './agent-connection.js';

const NO_EVENTS: ConnectionEvents = { hello: () => undefined, heartbeat: () => undefined, frame: () => undefined, closed: () => undefined };

describe("an agent's connection", () => {
  let server: Server;
  let client: WebSocket;
  let stream: Socket;
  let connection: AgentConnection;

  beforeEach(async () => {
    const websockets = new WebSocketServer({ noServer: true });
    server = createServer();
    const accepted = new Promise<void>((resolve) =>
      server.on('upgrade', (request, socket: Socket, head) => {
        stream = socket;
        websockets.handleUpgrade(request, socket, head, (websocket) => {
          connection = new AgentConnection('pve1', websocket, NO_EVENTS, '', socket);
          resolve();
        });
      }),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await Promise.all([once(client, 'open'), accepted]);
  });

  afterEach(async () => {
    client.terminate();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the frames of one turn of the event loop in one write, each its own websocket message', async () => {
    const writes: number[] = [];
    const writev = stream._writev?.bind(stream);
    stream._writev = (chunks, callback) => {
      writes.push(chunks.length);
      writev?.(chunks, callback);
    };
    const received: unknown[] = [];
    client.on('message', (data) => received.push(JSON.parse(String(data))));
    connection.send({ type: 'ack', upTo: 1 });
    connection.send({ type: 'lease', upTo: 1, ttlMs: 60_000, guests: [] });
    connection.send({ type: 'ack', upTo: 2 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toEqual([
      { type: 'ack', upTo: 1 },
      { type: 'lease', upTo: 1, ttlMs: 60_000, guests: [] },
      { type: 'ack', upTo: 2 },
    ]);
    // One write of them all (each message is a header and a payload: six buffers).
    expect(writes).toEqual([6]);
  });
});
