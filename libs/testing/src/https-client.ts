import { Agent, request } from 'node:https';

export interface ApiResponse {
  readonly status: number;
  /** The HTTP reason phrase: PVE clients read error text from it. */
  readonly reason: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  json<T = unknown>(): T;
}

export interface ApiRequest {
  readonly method?: string;
  readonly query?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as is, with the content type given in `headers` (if any). */
  readonly body?: string | Buffer;
}

/**
 * A small HTTPS client for black-box tests. It trusts exactly the certificate it is given, so the
 * tests also prove that the control plane's certificate is valid for 127.0.0.1.
 */
export class HttpsClient {
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    certificate: string,
  ) {
    this.agent = new Agent({ ca: certificate, keepAlive: true });
  }

  send(path: string, options: ApiRequest = {}): Promise<ApiResponse> {
    const url = new URL(this.baseUrl + path + (options.query ? `?${options.query}` : ''));
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    return new Promise((resolve, reject) => {
      const req = request(url, { method: options.method ?? 'GET', headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            reason: res.statusMessage ?? '',
            headers: res.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      });
      req.on('error', reject);
      req.end(options.body);
    });
  }

  get(path: string, query?: string): Promise<ApiResponse> {
    return this.send(path, query === undefined ? {} : { query });
  }

  close(): void {
    this.agent.destroy();
  }
}
