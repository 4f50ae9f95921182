import { createServer, connect, type Server, type Socket } from 'node:net';
import { testPostgres } from './test-postgres.js';

/** Where the proxy forwards to: a TCP address, or a unix socket's path. */
export type ProxyTarget = { readonly host: string; readonly port: number } | { readonly path: string };

/**
 * A TCP proxy on a free port of 127.0.0.1 to a server, that a test cuts off (every connection
 * destroyed and new ones refused, as when the server goes away) and restores, on the same port.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;

  private constructor(
    private readonly target: ProxyTarget,
    private listenPort: number,
  ) {}

  static async start(target: ProxyTarget): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, 0);
    await proxy.restore();
    return proxy;
  }

  get port(): number {
    return this.listenPort;
  }

  /** Destroys every connection through it and stops listening: a connect is refused until `restore()`. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((done) => server.close(() => done()));
  }

  /** Listens again, on the same port. */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => this.pipe(client));
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(this.listenPort, '127.0.0.1', () => done());
    });
    this.listenPort = (server.address() as { port: number }).port;
    this.server = server;
  }

  private pipe(client: Socket): void {
    const upstream = connect(this.target);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
}

/** A proxy to the test run's PostgreSQL, and how to turn a database URL of it into one through the proxy. */
export async function testPostgresProxy(): Promise<{ proxy: TcpProxy; through: (url: string) => string }> {
  const admin = testPostgres();
  const target: ProxyTarget =
    'url' in admin
      ? { host: new URL(admin.url).hostname, port: Number(new URL(admin.url).port || 5432) }
      : { path: `${admin.host}/.s.PGSQL.${admin.port}` };
  const proxy = await TcpProxy.start(target);
  const through = (url: string) => {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    proxied.searchParams.delete('host');
    return proxied.toString();
  };
  return { proxy, through };
}
