import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { connectPinned, FingerprintMismatch } from './connect-pinned.js';

/** A real TLS server on 127.0.0.1 with a fresh self-signed EC P-256 certificate, as the control plane makes one; it counts what clients send. */
async function tlsServer() {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const received: Buffer[] = [];
  const connections: Socket[] = [];
  const server = createServer({ key: pems.private, cert: pems.cert }, (socket: TLSSocket) =>
    socket.on('data', (chunk: Buffer) => received.push(chunk)),
  );
  server.on('connection', (socket: Socket) => connections.push(socket));
  server.on('tlsClientError', () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`),
    fingerprint: new X509Certificate(pems.cert).fingerprint256,
    received: () => Buffer.concat(received).toString('utf8'),
    /** Resolves once every connection made so far has ended, so that `received` is final. */
    settled: () => Promise.all(connections.map((socket) => (socket.closed ? undefined : once(socket, 'close')))),
    connections: () => connections.length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function listening(server: Server): Promise<URL> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

/** What a user of the library does with a trusted socket: send something on it. */
async function connectAndSend(url: URL, fingerprint: string | undefined, options = {}): Promise<void> {
  const socket = await connectPinned(url, fingerprint, options);
  socket.end('secret');
  await once(socket, 'close');
}

describe('a TLS connection pinned by certificate fingerprint', () => {
  let server: Awaited<ReturnType<typeof tlsServer>>;
  beforeAll(async () => (server = await tlsServer()));
  afterAll(() => server.close());

  it('is trusted when the SHA-256 fingerprint matches, though self-signed and not checked against a CA', async () => {
    await connectAndSend(server.url, server.fingerprint);
    await server.settled();
    expect(server.received()).toBe('secret');
  });

  it('is refused on another fingerprint, naming both, and nothing reaches the server', async () => {
    const before = server.received();
    const wrong = server.fingerprint.replace(/^../, (byte) => (byte === '00' ? '01' : '00'));
    const refused = connectAndSend(server.url, wrong);
    await expect(refused).rejects.toBeInstanceOf(FingerprintMismatch);
    await expect(refused).rejects.toEqual(
      expect.objectContaining({ host: server.url.host, presented: server.fingerprint, expected: wrong }),
    );
    await server.settled();
    expect(server.connections()).toBeGreaterThan(0);
    expect(server.received()).toBe(before);
  });

  it("falls back to Node's verification without a fingerprint: a self-signed certificate is refused before anything is sent", async () => {
    const before = server.received();
    await expect(connectAndSend(server.url, undefined)).rejects.toEqual(expect.objectContaining({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }));
    await server.settled();
    expect(server.received()).toBe(before);
  });

  it('rejects with the socket error when nothing listens', async () => {
    const closed = createTcpServer();
    const url = await listening(closed);
    await new Promise((resolve) => closed.close(resolve));
    await expect(connectPinned(url, server.fingerprint)).rejects.toEqual(expect.objectContaining({ code: 'ECONNREFUSED' }));
  });

  it('gives up with ETIMEDOUT on a peer that never completes the handshake', async () => {
    const silent = createTcpServer((socket) => socket.on('error', () => undefined));
    const url = await listening(silent);
    try {
      await expect(connectPinned(url, server.fingerprint, { timeoutMs: 200 })).rejects.toEqual(
        expect.objectContaining({ code: 'ETIMEDOUT', message: `connecting to ${url.host} timed out after 200 ms` }),
      );
    } finally {
      silent.close();
    }
  });
});
