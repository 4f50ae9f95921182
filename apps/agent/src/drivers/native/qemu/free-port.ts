import { once } from 'node:events';
import { createServer } from 'node:net';

/**
 * A TCP port free on `address` now, for a QEMU server that cannot say which port it got when
 * asked for port 0 (its NBD server). Another program may take it before QEMU does: the caller
 * tries again with another one when QEMU finds it in use.
 */
export async function freePort(address: string): Promise<number> {
  const server = createServer();
  server.listen(0, address);
  await once(server, 'listening');
  const bound = server.address();
  server.close();
  await once(server, 'close');
  if (bound === null || typeof bound === 'string') throw new Error(`could not find a free port on ${address}`);
  return bound.port;
}
