import { waitFor } from '@corral/testing';
import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { startTestApp } from '../../test-support/test-app.js';
import { closeGracefully } from './close-gracefully.js';
import { Endpoint, endpoint } from './endpoint.js';

let release: () => void = () => undefined;
let entered: () => void = () => undefined;
const handlerEntered = new Promise<void>((done) => (entered = done));

const slow = endpoint({
  method: 'GET',
  path: '/slow',
  summary: 'waits to be released',
  parameters: z.object({}),
  returns: z.string(),
  permission: { kind: 'public' },
});

@Controller()
class SlowController {
  @Endpoint(slow)
  async wait(): Promise<string> {
    entered();
    await new Promise<void>((done) => (release = done));
    return 'finished';
  }
}

describe('closeGracefully', () => {
  it('lets a request in flight finish, then closes without waiting for keep-alive timeouts', async () => {
    const t = await startTestApp({ controllers: [SlowController] });
    const inFlight = t.api.get('/slow');
    await handlerEntered;
    const closing = closeGracefully(t.app, 10 * 60_000);
    // Released only once the server has stopped listening, i.e. while it is closing.
    const server = t.app.getHttpServer();
    await waitFor(() => !server.listening, { timeoutMs: 5000, what: 'the server to stop listening' });
    release();
    const res = await inFlight;
    // The connection it came on is closed as soon as it is idle: no wait for its keep-alive timeout.
    await closing;
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ data: 'finished' });
    // Closed for good: a new connection is refused.
    await expect(t.api.get('/slow')).rejects.toThrow(/ECONNREFUSED|socket hang up/);
    await t.close();
  });
});
