import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import type { ApiCall } from './api-call.js';
import { ApiFailure, ConnectionFailure } from './api-failure.js';
import { connectTls, type Pin } from './tls-connection.js';

const FORM = 'application/x-www-form-urlencoded';

/** Sends calls to `<url>/api2/json`, one connection each, and returns the response's `data`. */
export class ApiClient {
  constructor(
    private readonly url: URL,
    private readonly pin: Pin | undefined,
  ) {}

  async send(call: ApiCall, headers: Readonly<Record<string, string>>): Promise<unknown> {
    const response = await this.open(call, { accept: 'application/json', ...headers });
    const text = await bodyOf(response);
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) throw ApiFailure.fromResponse(status, response.statusMessage ?? '', text);
    return dataOf(text, status);
  }

  /** A call whose answer the caller reads as it comes (a stream of events): the response once it is a success, else the ApiFailure. */
  async stream(call: ApiCall, headers: Readonly<Record<string, string>>): Promise<IncomingMessage> {
    const response = await this.open(call, headers);
    const status = response.statusCode ?? 0;
    if (status >= 200 && status <= 299) return response;
    throw ApiFailure.fromResponse(status, response.statusMessage ?? '', await bodyOf(response));
  }

  private async open(call: ApiCall, headers: Readonly<Record<string, string>>): Promise<IncomingMessage> {
    const target = new URL(`${this.url.origin}${this.url.pathname.replace(/\/$/, '')}/api2/json${call.path}`);
    // PVE's decoding: GET and DELETE carry parameters in the query, POST and PUT in a form body.
    const inBody = call.method === 'POST' || call.method === 'PUT';
    if (!inBody) target.search = encode(call.params);
    const socket = await connectTls(this.url, this.pin);
    const json = call.body === 'json';
    const body = inBody ? (json ? JSON.stringify(call.params) : encode(call.params)) : undefined;
    return new Promise((resolve, reject) => {
      const req = request(
        target,
        {
          method: call.method,
          headers: {
            ...headers,
            ...(body === undefined
              ? {}
              : { 'content-type': json ? 'application/json' : FORM, 'content-length': String(Buffer.byteLength(body)) }),
          },
          createConnection: () => socket,
        },
        resolve,
      );
      req.on('error', (error) => reject(new ConnectionFailure(`${call.method} ${target.pathname}: ${error.message}`)));
      req.end(body);
    });
  }
}

function bodyOf(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('error', reject);
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function encode(params: ApiCall['params']): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    for (const item of typeof value === 'string' ? [value] : (value ?? [])) form.append(key, item);
  return form.toString();
}

function dataOf(text: string, status: number): unknown {
  try {
    return (JSON.parse(text) as { data?: unknown }).data ?? null;
  } catch {
    throw new ApiFailure(status, ['the answer is not JSON: is CORRAL_URL the control plane?']);
  }
}
