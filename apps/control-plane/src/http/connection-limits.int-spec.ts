import { Controller } from '@nestjs/common';
import { connect, type TLSSocket } from 'node:tls';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { Endpoint, endpoint, type ParamsOf } from './endpoint.js';
import { stringParam } from './params.js';
import { Params } from './request-params.js';

const echo = endpoint({
  method: 'POST',
  path: '/fixture-echo',
  summary: 'echo',
  parameters: z.object({ text: stringParam({ description: 'any text' }) }),
  returns: z.record(z.string(), z.unknown()),
  permission: { kind: 'public' },
});

@Controller()
class EchoController {
  @Endpoint(echo)
  echo(@Params() params: ParamsOf<typeof echo>) {
    return params;
  }
}

/** One raw TLS connection: what it was sent, and everything the server wrote until it closed the connection. */
class RawConnection {
  private readonly socket: TLSSocket;
  private received = '';
  readonly closed: Promise<string>;

  constructor(port: number, cert: string) {
    this.socket = connect({ host: '127.0.0.1', port, ca: cert, servername: 'localhost', checkServerIdentity: () => undefined });
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    this.closed = new Promise((resolve) => {
      // A reset after the answer still leaves what was read before it.
      this.socket.on('error', () => undefined);
      this.socket.on('close', () => resolve(this.received));
    });
  }

  /** Writes and waits until the bytes were handed to the kernel, or the connection closed (the server may cut the upload short). */
  write(data: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.write(data, () => resolve());
      this.socket.once('close', () => resolve());
    });
  }

  /** Stops reading what the server writes, as a client does that sends its whole request before it reads. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The status line and the JSON body of a raw HTTP/1.1 response. */
function parseResponse(raw: string): { status: number; headers: string; body: unknown } {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const body = rest.join('\r\n\r\n');
  return { status, headers: head, body: body === '' ? null : JSON.parse(body) };
}

describe('connections that send too much or too slowly', () => {
  let t: TestApp;
  let port: number;
  const connections: RawConnection[] = [];
  beforeAll(async () => {
    t = await startTestApp({ controllers: [EchoController], env: { CORRAL_HTTP_BODY_TIMEOUT_S: '1' } });
    ({ port } = t.app.getHttpServer().address() as { port: number });
  });
  afterEach(() => connections.splice(0).forEach((connection) => connection.destroy()));
  afterAll(() => t.close());

  const open = () => {
    const connection = new RawConnection(port, t.cert);
    connections.push(connection);
    return connection;
  };

  it('answers a 10 MB JSON body with a readable 413 naming the limit, then closes the connection', async () => {
    const connection = open();
    const body = JSON.stringify({ text: 'x'.repeat(10 * 1024 * 1024) });
    await connection.write(
      `POST /api2/json/fixture-echo HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    await connection.write(body);
    const response = parseResponse(await connection.closed);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ data: null, errors: [{ code: 413, message: 'request body too large: the limit is 524288 bytes' }] });
  });

  it('answers a 10 MB form body with a 413 that a client reads after sending all of it', async () => {
    const connection = open();
    const body = `text=${'x'.repeat(10 * 1024 * 1024)}`;
    connection.pause();
    await connection.write(
      `POST /api2/json/fixture-echo HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    await connection.write(body);
    connection.resume();
    const response = parseResponse(await connection.closed);
    expect(response.status).toBe(413);
  });

  it('answers a 64 KB header with a readable 431, then closes the connection', async () => {
    const connection = open();
    await connection.write(`GET /api2/json/version HTTP/1.1\r\nhost: localhost\r\nx-filler: ${'x'.repeat(64 * 1024)}\r\n\r\n`);
    const response = parseResponse(await connection.closed);
    expect(response.status).toBe(431);
    expect(response.body).toEqual({
      data: null,
      errors: [{ code: 431, message: expect.stringMatching(/^request headers too large: the limit is \d+ bytes$/) }],
    });
  });

  it('answers a body that stops arriving with 408 and closes the connection', async () => {
    const connection = open();
    await connection.write(
      'POST /api2/json/fixture-echo HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"text": "',
    );
    const response = parseResponse(await connection.closed);
    expect(response.status).toBe(408);
    expect(response.body).toEqual({
      data: null,
      errors: [{ code: 408, message: 'request body timeout: no part of it arrived for 1 s' }],
    });
  });

  it('answers headers that stop arriving with 408 and closes the connection', async () => {
    const connection = open();
    await connection.write('GET /api2/json/version HTTP/1.1\r\nhost: localhost\r\n');
    const response = parseResponse(await connection.closed);
    expect(response.status).toBe(408);
    expect(response.body).toEqual({
      data: null,
      errors: [{ code: 408, message: 'request timeout: the headers did not arrive within 1 s' }],
    });
  });
});
