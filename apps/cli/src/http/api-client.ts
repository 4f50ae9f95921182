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
    const target = new URL(`${this.url.origin}${this.url.pathname.replace(/\/$/, '')}/api2/json${call.path}`);
    // PVE's decoding: GET and DELETE carry parameters in the query, POST and PUT in a form body (facts.md 0).
    const inBody = call.method === 'POST' || call.method === 'PUT';
    if (!inBody) target.search = encode(call.params);
    const socket = await connectTls(this.url, this.pin);
    const json = call.body === 'json';
    const body = inBody ? (json ? JSON.stringify(call.params) : encode(call.params)) : undefined;
    const response = await new Promise<{ status: number; reason: string; text: string }>((resolve, reject) => {
      const req = request(
        target,
        {
          method: call.method,
          headers: { accept: 'application/json', ...headers, ...(body === undefined ? {} : { 'content-type': json ? 'application/json' : FORM, 'content-length': String(Buffer.byteLength(body)) }) },
          createConnection: () => socket,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', (error) => reject(new ConnectionFailure(`${call.method} ${target.pathname}: ${error.message}`)));
      req.end(body);
    });
    if (response.status < 200 || response.status > 299) throw ApiFailure.fromResponse(response.status, response.reason, response.text);
    return dataOf(response.text, response.status);
  }
}

function encode(params: ApiCall['params']): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) for (const item of typeof value === 'string' ? [value] : (value ?? [])) form.append(key, item);
  return form.toString();
}

function dataOf(text: string, status: number): unknown {
  try {
    return (JSON.parse(text) as { data?: unknown }).data ?? null;
  } catch {
    throw new ApiFailure(status, ['the answer is not JSON: is CORRAL_URL the control plane?']);
  }
}
