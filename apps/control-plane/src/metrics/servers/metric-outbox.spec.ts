import { waitFor } from '@corral/testing';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { batched, MAX_PENDING_BYTES, MetricOutbox } from './metric-outbox.js';

describe('a metric outbox', () => {
  it('batches lines up to the size, a longer line alone', () => {
    expect(batched(['aaaa\n', 'bb\n', 'cccccccc\n', 'd\n'], 8)).toEqual([
      { text: 'aaaa\nbb\n', from: 0 },
      { text: 'cccccccc\n', from: 2 },
      { text: 'd\n', from: 3 },
    ]);
    expect(batched([], 8)).toEqual([]);
  });

  describe('sending to a Graphite server over TCP', () => {
    let server: Server;
    let received = '';
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      // A receiver that reads to the end of what is sent and never closes its side, as some do.
      server = createServer({ allowHalfOpen: true }, (socket) => {
        sockets.add(socket);
        socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    });

    const outbox = (port: number) =>
      new MetricOutbox({ type: 'graphite', settings: { server: '127.0.0.1', port, proto: 'tcp' }, token: null });

    it('keeps the lines a server did not take, within its bound, and sends them in order once it takes them', async () => {
      const { port } = server.address() as AddressInfo;
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const deadPort = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));

      const box = outbox(deadPort);
      box.queue(['a 1 1\n']);
      expect(await box.flush()).toEqual({ sent: false, error: expect.stringContaining(`cannot reach 127.0.0.1:${deadPort}`) });
      box.queue(['b 2 2\n']);
      expect(box.pendingLines).toBe(2);
      box.destination = { ...box.destination, settings: { server: '127.0.0.1', port, proto: 'tcp' } };
      expect(await box.flush()).toEqual({ sent: true });
      expect(await box.flush()).toBeNull();
      await waitFor(() => received === 'a 1 1\nb 2 2\n', { timeoutMs: 5000, what: 'the lines, in order' });

      // Beyond the bound, the oldest go.
      const line = `${'x'.repeat(1023)}\n`;
      box.queue(Array.from({ length: MAX_PENDING_BYTES / 1024 + 10 }, () => line));
      expect(box.pendingLines).toBe(MAX_PENDING_BYTES / 1024);
      expect(box.dropped).toBe(10);
    });
  });
});
