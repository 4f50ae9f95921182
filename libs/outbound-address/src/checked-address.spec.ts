import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressRefused, checkedAddress, pinnedLookup } from './checked-address.js';

const REFUSE_LOOPBACK = (address: string) => (address.startsWith('127.') || address === '::1' ? 'a loopback address' : null);
const ALLOW_ALL = () => null;

describe('checked addresses', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('here'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a literal address and a name that resolves to a refused address, naming both', async () => {
    const signal = new AbortController().signal;
    await expect(checkedAddress(new URL('http://127.0.0.1/'), REFUSE_LOOPBACK, signal)).rejects.toThrow(
      new AddressRefused('127.0.0.1 is a loopback address'),
    );
    await expect(checkedAddress(new URL('http://localhost/'), REFUSE_LOOPBACK, signal)).rejects.toThrow(
      /^localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    );
  });

  it('connects to the address checked, whatever the name says', async () => {
    const address = await checkedAddress(new URL('http://127.0.0.1/'), ALLOW_ALL, new AbortController().signal);
    expect(address).toEqual({ address: '127.0.0.1', family: 4 });
    // A name no resolver knows: only the pinned lookup makes it reach the server.
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(`http://nowhere.invalid:${port}/`, { lookup: pinnedLookup(address), agent: false }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    expect(body).toBe('here');
  });
});
