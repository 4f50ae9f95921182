import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS, encodeFrame, parseCommandRequest, runCommand } from '@corral/protocol';
import { SimDriver } from '../drivers/sim/sim-driver.js';
import { openHost, type Host } from '../host/host.js';
import { jsonLogger } from '../logging/logger.js';
import { createCommandHandlers, withoutUndefined } from './command-handlers.js';
import { WatchedStorages } from './storage/watched-storages.js';
import { UNREAD_RUNTIME } from '../../test-support/unread-runtime.js';

/** The handlers with a simulated driver whose run state nobody reads, and no control plane to open streams to. */
function handlersFor(host: Host) {
  const noStreams = () => Promise.reject(new Error('no control plane in this test'));
  const logger = jsonLogger(() => undefined);
  return createCommandHandlers(
    host,
    new SimDriver(host, { stateDir: host.root, speed: 0 }),
    UNREAD_RUNTIME,
    noStreams,
    new WatchedStorages(host, logger),
    logger,
  );
}

describe('the command handlers', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-handlers-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('has a handler for every command of the catalog', async () => {
    const handlers = handlersFor(await openHost(dir));
    expect(Object.keys(handlers).sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  it('runs a checked request against the host root', async () => {
    await mkdir(join(dir, 'etc'));
    await writeFile(join(dir, 'etc/resolv.conf'), 'search example.com\nnameserver 192.0.2.53\n');
    const checked = parseCommandRequest({ command: 'node.dns.get', params: {} });
    if (!checked.ok) throw new Error(checked.message);
    const result = await runCommand(handlersFor(await openHost(dir)), checked.request, {
      signal: new AbortController().signal,
      log: () => undefined,
    });
    expect(result).toEqual({ search: ['example.com'], servers: ['192.0.2.53'] });
  });

  it('answers with results a result frame can carry, optional fields left out rather than undefined', async () => {
    await mkdir(join(dir, 'etc/network'), { recursive: true });
    await writeFile(join(dir, 'etc/network/interfaces'), 'auto vmbr0\niface vmbr0 inet manual\n\tbridge-ports none\n');
    const handlers = handlersFor(await openHost(dir));
    const listed = await handlers['node.network.list']({}, { signal: new AbortController().signal, log: () => undefined });
    expect(Object.keys(listed)).toEqual(['interfaces']);
    expect(listed.interfaces.find((iface) => iface.iface === 'vmbr0')).toStrictEqual({
      iface: 'vmbr0',
      type: 'bridge',
      active: false,
      exists: false,
      autostart: true,
      method: 'manual',
      method6: 'manual',
      bridgePorts: [],
    });
    expect(() => encodeFrame({ type: 'result', seq: 1, id: 'req-1', result: listed })).not.toThrow();
  });

  it('leaves out undefined fields at every depth, and nothing else', () => {
    expect(withoutUndefined({ a: undefined, b: null, c: [{ d: undefined, e: 0 }, 'x'], f: { g: undefined, h: false } })).toStrictEqual({
      b: null,
      c: [{ e: 0 }, 'x'],
      f: { h: false },
    });
  });
});
