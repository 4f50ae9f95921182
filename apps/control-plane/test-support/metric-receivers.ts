import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';

/*
 * Small metric servers on loopback, for the tests of the metric senders: an InfluxDB HTTP v2
 * endpoint, and receivers of datagrams and of TCP streams (InfluxDB's and Graphite's plaintext).
 */

/** What an InfluxDB HTTP receiver was sent. */
export interface InfluxWrite {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** The behaviour of the `/api/v2/write` endpoint: answer with a status, or never answer. */
export type WriteAnswer = number | 'hang';

export class InfluxHttpReceiver {
  readonly writes: InfluxWrite[] = [];
  /** What the next writes are answered with, in order; then 204. */
  readonly answers: WriteAnswer[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(private readonly server: HttpServer) {}

  static async start(): Promise<InfluxHttpReceiver> {
    const server = createHttpServer();
    const receiver = new InfluxHttpReceiver(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => receiver.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The lines written, in order. */
  lines(): string[] {
    return this.writes.flatMap((write) => write.body.split('\n').filter(Boolean));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://receiver');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'GET' && url.pathname.endsWith('/health')) return void response.writeHead(200).end('{"status":"pass"}');
      if (request.method !== 'POST' || !url.pathname.endsWith('/api/v2/write')) return void response.writeHead(404).end();
      const answer = this.answers.shift() ?? 204;
      if (answer === 'hang') return void this.hanging.add(response);
      if (answer === 204)
        this.writes.push({
          path: url.pathname,
          query: url.searchParams,
          authorization: request.headers.authorization,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      response.writeHead(answer).end();
    });
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Collects what is sent to it over UDP. */
export class DatagramReceiver {
  readonly datagrams: string[] = [];

  private constructor(private readonly socket: UdpSocket) {
    socket.on('message', (message) => this.datagrams.push(message.toString('utf8')));
  }

  static async start(): Promise<DatagramReceiver> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new DatagramReceiver(socket);
  }

  get port(): number {
    return this.socket.address().port;
  }

  lines(): string[] {
    return this.datagrams.flatMap((datagram) => datagram.split('\n').filter(Boolean));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(resolve));
  }
}

/** Collects what is written to it over TCP, a connection at a time. */
export class StreamReceiver {
  private readonly received: string[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: TcpServer) {}

  static async start(): Promise<StreamReceiver> {
    const server = createTcpServer();
    const receiver = new StreamReceiver(server);
    server.on('connection', (socket: Socket) => receiver.accept(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  lines(): string[] {
    return this.received.join('').split('\n').filter(Boolean);
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('data', (chunk: Buffer) => this.received.push(chunk.toString('utf8')));
    socket.on('close', () => this.sockets.delete(socket));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A port on loopback where nothing listens (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
