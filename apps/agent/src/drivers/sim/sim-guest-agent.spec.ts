import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEB1 } from '../../../test-support/guest-specs.js';
import { openHost } from '../../host/host.js';
import type { CommandContext } from '../command-context.js';
import { SimDriver } from './sim-driver.js';

describe("the sim driver's guest agent", () => {
  let dir: string;
  let sim: SimDriver;
  const context: CommandContext = { signal: new AbortController().signal, log: () => undefined };
  const withAgent = { ...WEB1, config: { ...WEB1.config, agent: 'enabled=1' } };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-sim-qga-'));
    sim = new SimDriver(await openHost(dir), { stateDir: dir, speed: 0 });
    await sim.create({ guest: withAgent, allocate: ['scsi0'] }, context);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('answers for a VM started with agent: 1: its cards in network-get-interfaces, exec and exec-status, the freeze', async () => {
    await sim.start(withAgent, context);
    const interfaces = (await sim.guestAgent({ vmid: 100, command: 'guest-network-get-interfaces' }, context)) as {
      name: string;
      'hardware-address': string;
    }[];
    expect(interfaces.map((card) => card.name)).toStrictEqual(['lo', ...WEB1.nics.map((_nic, index) => `eth${index}`)]);
    expect(interfaces[1]?.['hardware-address']).toBe(WEB1.nics[0]?.mac.toLowerCase());
    const input = Buffer.from('hello\n').toString('base64');
    const { pid } = (await sim.guestAgent(
      { vmid: 100, command: 'guest-exec', arguments: { path: '/bin/cat', arg: [], 'input-data': input, 'capture-output': true } },
      context,
    )) as { pid: number };
    expect(await sim.guestAgent({ vmid: 100, command: 'guest-exec-status', arguments: { pid } }, context)).toStrictEqual({
      exited: true,
      exitcode: 0,
      'out-data': input,
    });
    await expect(sim.guestAgent({ vmid: 100, command: 'guest-exec-status', arguments: { pid: pid + 1 } }, context)).rejects.toThrow(
      "Agent error: Invalid parameter 'pid'",
    );
    expect(await sim.guestAgent({ vmid: 100, command: 'guest-fsfreeze-freeze' }, context)).toBe(1);
    expect(await sim.guestAgent({ vmid: 100, command: 'guest-fsfreeze-status' }, context)).toBe('frozen');
  });

  it("answers PVE's error for a VM started without the guest agent, and says a stopped VM is not running", async () => {
    await expect(sim.guestAgent({ vmid: 100, command: 'guest-ping' }, context)).rejects.toThrow('VM 100 is not running');
    await sim.start(WEB1, context);
    await expect(sim.guestAgent({ vmid: 100, command: 'guest-ping' }, context)).rejects.toMatchObject({
      code: 'unavailable',
      message: 'QEMU guest agent is not running',
    });
  });

  it('stops the VM on guest-shutdown, answering null', async () => {
    await sim.start(withAgent, context);
    expect(await sim.guestAgent({ vmid: 100, command: 'guest-shutdown' }, context)).toBeNull();
    expect(await sim.list()).toEqual([expect.objectContaining({ vmid: 100, status: 'stopped' })]);
  });
});
