import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the receiver answers a request: a status (and headers), or never. */
export type Answer = number | { readonly status: number; readonly headers: Record<string, string> } | 'hang';

/**
 * A webhook receiver on 127.0.0.1 (so Corral webhooks need allow-local=1 to reach it): it records every request
 * and answers as `answer` says, 200 by default; `answer` may change while it runs.
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  answer: (request: ReceivedRequest) => Answer = () => 200;

  private constructor(private readonly server: Server) {}

  /** Listens on `port`, a free one by default. */
  static async start(port = 0): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        receiver.requests.push(request);
        const answer = receiver.answer(request);
        if (answer === 'hang') return;
        const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
        res.writeHead(status, headers).end(status >= 300 ? `answer ${status}` : '');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    return receiver;
  }

  /** `http://127.0.0.1:<port><path>` */
  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The JSON bodies received at `path`, in order. */
  bodies(path = '/hook'): Record<string, unknown>[] {
    return this.requests.filter((request) => request.path === path).map((request) => JSON.parse(request.body) as Record<string, unknown>);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
