import { waitFor } from '@corral/testing';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import type { CommandContext } from '../../drivers/command-context.js';
import { PveDriver } from '../../drivers/pve/pve-driver.js';
import { SimDriver } from '../../drivers/sim/sim-driver.js';
import { openHost } from '../../host/host.js';
import { jsonLogger } from '../../logging/logger.js';
import { vncCommands } from './vnc-stream.js';

const context: CommandContext = { signal: new AbortController().signal, log: () => undefined };
const logger = jsonLogger(() => undefined);
const WAIT = { timeoutMs: 10_000 };

/** A VNC display as QEMU serves one on its unix socket: the RFB version at once, then (here) an echo of what the client sends. */
class FakeDisplay {
  readonly connections: Socket[] = [];
  received = '';

  private constructor(
    readonly server: Server,
    readonly path: string,
  ) {
    server.on('connection', (socket) => {
      this.connections.push(socket);
      // The agent's side may go at any moment; the test looks at `closed`.
      socket.on('error', () => socket.destroy());
      socket.write('RFB 003.008\n');
      socket.on('data', (chunk) => {
        this.received += chunk.toString('latin1');
        socket.write(chunk);
      });
    });
  }

  static async start(dir: string): Promise<FakeDisplay> {
    const path = join(dir, '100.vnc');
    const server = createServer();
    server.listen(path);
    await once(server, 'listening');
    return new FakeDisplay(server, path);
  }

  open(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.path, () => resolve(socket));
      socket.once('error', reject);
    });
  }
}

/** The control plane's end of the streams: every stream websocket the agent opens, with what came on it. */
class FakeStreams {
  readonly opened: { path: string; socket: WebSocket; received: string; closed?: { code: number; reason: string } }[] = [];

  private constructor(readonly server: WebSocketServer) {
    server.on('connection', (socket, request) => {
      const stream: FakeStreams['opened'][number] = { path: request.url ?? '', socket, received: '' };
      this.opened.push(stream);
      socket.on(
        'message',
        (data: Buffer, isBinary) => (stream.received += isBinary ? data.toString('latin1') : `<text ${data.toString()}>`),
      );
      socket.on('close', (code, reason) => (stream.closed = { code, reason: reason.toString() }));
    });
  }

  static async start(): Promise<FakeStreams> {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(server, 'listening');
    return new FakeStreams(server);
  }

  opener(): (stream: string) => Promise<WebSocket> {
    const { port } = this.server.address() as { port: number };
    return (stream) =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}/agent/v1/streams/${stream}`);
        socket.once('open', () => resolve(socket));
        socket.once('error', reject);
      });
  }

  async only(): Promise<FakeStreams['opened'][number]> {
    await waitFor(() => this.opened.length === 1, { ...WAIT, what: 'the stream' });
    return this.opened[0] as FakeStreams['opened'][number];
  }

  close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('guest.vnc.open', () => {
  let dir: string;
  let display: FakeDisplay;
  let streams: FakeStreams;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-vnc-'));
    display = await FakeDisplay.start(dir);
    streams = await FakeStreams.start();
  });
  afterEach(async () => {
    await streams.close();
    for (const socket of display.connections) socket.destroy();
    await new Promise((resolve) => display.server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const handler = (opener = streams.opener()) => vncCommands({ vnc: () => display.open() }, opener, logger)['guest.vnc.open'];

  it('joins the display to a stream named by the request: the bytes pass unchanged both ways as binary messages', async () => {
    await expect(handler()({ vmid: 100, stream: 'stream-1' }, context)).resolves.toBeNull();
    const stream = await streams.only();
    expect(stream.path).toBe('/agent/v1/streams/stream-1');
    await waitFor(() => stream.received === 'RFB 003.008\n', { ...WAIT, what: "the display's version" });

    const bytes = Buffer.from([0x52, 0x46, 0x42, 0x20, 0x00, 0xff, 0x0a]);
    stream.socket.send(bytes, { binary: true });
    await waitFor(() => display.received === bytes.toString('latin1'), { ...WAIT, what: 'the bytes at the display' });
    await waitFor(() => stream.received === `RFB 003.008\n${bytes.toString('latin1')}`, { ...WAIT, what: 'the echo on the stream' });
  });

  it('closes the display when the stream closes, and the stream when the display closes', async () => {
    await handler()({ vmid: 100, stream: 'stream-1' }, context);
    const first = await streams.only();
    await waitFor(() => display.connections.length === 1, { ...WAIT, what: 'the display connection' });
    first.socket.close(1000, 'the VNC client closed');
    await waitFor(() => display.connections[0]?.closed === true, { ...WAIT, what: 'the display connection to close' });

    await handler()({ vmid: 100, stream: 'stream-2' }, context);
    await waitFor(() => display.connections.length === 2, { ...WAIT, what: 'the second display connection' });
    display.connections[1]?.end();
    await waitFor(() => streams.opened[1]?.closed !== undefined, { ...WAIT, what: 'the second stream to close' });
    expect(streams.opened[1]?.closed).toEqual({ code: 1000, reason: 'the VNC display closed' });
  });

  it('fails naming the VM when the stream cannot be opened, and lets go of the display', async () => {
    const refused = () => Promise.reject(new Error('the control plane answered the websocket upgrade with HTTP 404 Not Found'));
    await expect(handler(refused)({ vmid: 100, stream: 'stream-1' }, context)).rejects.toThrow(
      'VM 100: could not open the VNC stream to the control plane: the control plane answered the websocket upgrade with HTTP 404 Not Found',
    );
    await waitFor(() => display.connections[0]?.closed === true, { ...WAIT, what: 'the display connection to close' });
  });

  it('is refused by the sim and pve drivers, which have no display of their own', async () => {
    const sim = new SimDriver(await openHost(dir), { stateDir: dir, speed: 0 });
    await expect(vncCommands(sim, streams.opener(), logger)['guest.vnc.open']({ vmid: 100, stream: 's' }, context)).rejects.toMatchObject({
      code: 'unavailable',
      message: 'VNC is not available with the sim driver',
    });
    await expect(
      vncCommands(new PveDriver(), streams.opener(), logger)['guest.vnc.open']({ vmid: 100, stream: 's' }, context),
    ).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('VNC is not available with the pve driver'),
    });
    expect(streams.opened).toEqual([]);
  });
});
