import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { DEFAULTS, transportOf, type MetricServerSettings, type MetricServerType } from './metric-server-settings.js';

/** A metric server as the sender reaches it. */
export interface Destination {
  readonly type: MetricServerType;
  readonly settings: MetricServerSettings;
  readonly token: string | null;
}

/** Why a server could not be reached or refused what it was sent; its message says which, `sent` how many batches went before. */
export class SendFailed extends Error {
  constructor(
    message: string,
    readonly sent = 0,
  ) {
    super(message);
  }
}

const timeoutMs = (settings: MetricServerSettings) => (settings.timeout ?? DEFAULTS.timeout) * 1000;

/**
 * Sends the batches in order, each a datagram (UDP), a write on one connection (TCP) or a request
 * (HTTP), each within the timeout; fails with the number of batches sent before.
 */
export async function send(destination: Destination, batches: readonly string[]): Promise<void> {
  const { settings } = destination;
  switch (transportOf(destination.type, settings)) {
    case 'udp':
      return sendDatagrams(settings, batches);
    case 'tcp':
      return sendStream(settings, batches.join(''));
    default:
      for (const [index, batch] of batches.entries())
        await influxRequest(destination, 'POST', writePath(settings), batch).catch((error: SendFailed) => {
          throw new SendFailed(error.message, index);
        });
  }
}

/**
 * Tries a server as PVE does before adding it: an HTTP server must answer `GET /health`, a TCP one
 * accept a connection, a UDP one have an address.
 */
export async function tryServer(destination: Destination): Promise<void> {
  const { settings } = destination;
  switch (transportOf(destination.type, settings)) {
    case 'udp':
      await addressOf(settings.server);
      return;
    case 'tcp':
      return sendStream(settings, '');
    default:
      return influxRequest(destination, 'GET', `${pathPrefix(settings)}health`);
  }
}

async function addressOf(server: string): Promise<{ address: string; family: number }> {
  try {
    return await lookup(server);
  } catch {
    throw new SendFailed(`cannot resolve '${server}'`);
  }
}

async function sendDatagrams(settings: MetricServerSettings, batches: readonly string[]): Promise<void> {
  const { address, family } = await addressOf(settings.server);
  const socket = createSocket(family === 6 ? 'udp6' : 'udp4');
  try {
    for (const [index, batch] of batches.entries())
      await new Promise<void>((resolve, reject) =>
        socket.send(batch, settings.port, address, (error) =>
          error ? reject(new SendFailed(`cannot send to ${settings.server}:${settings.port}: ${error.message}`, index)) : resolve(),
        ),
      );
  } finally {
    socket.close();
  }
}

/**
 * Connects, writes `text` (nothing: only connects) and closes, within the timeout; done once the
 * bytes are handed to the kernel, as PVE's sender is: a receiver need not close its side.
 */
function sendStream(settings: MetricServerSettings, text: string): Promise<void> {
  const where = `${settings.server}:${settings.port}`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: settings.server, port: settings.port });
    socket.setTimeout(timeoutMs(settings), () =>
      socket.destroy(new SendFailed(`no answer from ${where} within ${timeoutMs(settings) / 1000} s`)),
    );
    socket.on('error', (error) => reject(error instanceof SendFailed ? error : new SendFailed(`cannot reach ${where}: ${error.message}`)));
    socket.on('connect', () =>
      socket.end(text, () => {
        socket.destroy();
        resolve();
      }),
    );
  });
}

/** PVE's `api-path-prefix`, as `/<prefix>/` (or `/`). */
function pathPrefix(settings: MetricServerSettings): string {
  const inner = (settings['api-path-prefix'] ?? '').replace(/^\/+|\/+$/g, '');
  return inner === '' ? '/' : `/${inner}/`;
}

function writePath(settings: MetricServerSettings): string {
  const query = new URLSearchParams({
    org: settings.organization ?? DEFAULTS.organization,
    bucket: settings.bucket ?? DEFAULTS.bucket,
  });
  return `${pathPrefix(settings)}api/v2/write?${query.toString()}`;
}

/** One request to InfluxDB's HTTP API, with the token; a status other than 2xx fails with it. */
function influxRequest(destination: Destination, method: 'GET' | 'POST', path: string, body?: string): Promise<void> {
  const { settings, token } = destination;
  const https = transportOf(destination.type, settings) === 'https';
  const url = `${https ? 'https' : 'http'}://${settings.server.includes(':') ? `[${settings.server}]` : settings.server}:${settings.port}${path}`;
  /** The URL as errors show it: without the query. */
  const shown = url.replace(/\?.*/, '');
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
  if (token !== null) headers['authorization'] = `Token ${token}`;
  const options = {
    method,
    headers,
    signal: AbortSignal.timeout(timeoutMs(settings)),
    ...(https ? { rejectUnauthorized: settings['verify-certificate'] ?? true } : {}),
  };
  return new Promise((resolve, reject) => {
    const answered = (response: IncomingMessage) => {
      response.resume();
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) response.on('end', () => resolve());
      else reject(new SendFailed(`${method} ${shown} answered ${status} ${response.statusMessage ?? ''}`.trimEnd()));
      response.on('error', () => reject(new SendFailed(`${shown} broke off its answer`)));
    };
    const outgoing = https ? httpsRequest(url, options, answered) : httpRequest(url, options, answered);
    outgoing.on('error', (error) =>
      reject(
        new SendFailed(
          error.name === 'AbortError' || error.name === 'TimeoutError'
            ? `no answer from ${shown} within ${timeoutMs(settings) / 1000} s`
            : `cannot reach ${shown}: ${error.message}`,
        ),
      ),
    );
    outgoing.end(body);
  });
}
