import { mkdtemp, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestSpec } from '@corral/protocol';
import { DB1, WEB1 } from '../../test-support/guest-specs.js';
import { removeHostRoot } from '../../test-support/host-roots.js';
import { guestCommands } from '../commands/guests/guest-commands.js';
import type { CommandContext } from '../drivers/command-context.js';
import { NativeQemu } from '../drivers/native/qemu/native-qemu.js';
import { qemuRuntimeFiles } from '../drivers/native/qemu/qemu-runtime-files.js';
import { SimDriver } from '../drivers/sim/sim-driver.js';
import { openHost, type Host } from '../host/host.js';
import { jsonLogger } from '../logging/logger.js';
import { FENCE_MARGIN_MS, HaLease } from './ha-lease.js';
import { SelfFence } from './self-fence.js';
import { UNREAD_RUNTIME } from '../../test-support/unread-runtime.js';

const context = (): CommandContext => ({ signal: new AbortController().signal, log: () => undefined });
const RENEWED = new Date('2026-05-04T09:30:00Z');

function logged() {
  const lines: { level: string; msg: string }[] = [];
  return { lines, logger: jsonLogger((line) => lines.push(JSON.parse(line) as { level: string; msg: string })) };
}

describe('the self-fence on the sim driver', () => {
  let dir: string;
  let host: Host;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-fence-'));
    host = await openHost(dir);
  });
  afterEach(() => removeHostRoot(dir));

  async function running(speed = 0, ...guests: GuestSpec[]) {
    const sim = new SimDriver(host, { stateDir: dir, speed });
    for (const guest of guests) {
      await sim.create({ guest, allocate: [] }, context());
      await sim.start(guest, context());
    }
    const { lines, logger } = logged();
    const refreshed: string[] = [];
    const fence = new SelfFence(sim, logger, { refresh: async () => void refreshed.push('refresh') });
    const commands = guestCommands(sim, UNREAD_RUNTIME, fence);
    const statuses = async () => Object.fromEntries((await sim.list()).map((guest) => [guest.vmid, guest.status]));
    return { sim, fence, commands, lines, refreshed, statuses };
  }

  it('kills every listed guest, logging why at error level and each result, then reads the run state', async () => {
    const { fence, lines, refreshed, statuses } = await running(0, WEB1, DB1);
    fence.fence(
      [
        { type: 'qemu', vmid: 100 },
        { type: 'lxc', vmid: 200 },
      ],
      RENEWED,
    );
    await fence.settled();
    expect(await statuses()).toEqual({ 100: 'stopped', 200: 'stopped' });
    expect(lines[0]).toMatchObject({
      level: 'error',
      msg: 'self-fence: HA lease not renewed since 2026-05-04T09:30:00.000Z; stopping HA guests VM 100, CT 200',
    });
    expect(
      lines
        .slice(1)
        .map((line) => line.msg)
        .sort(),
    ).toEqual(['self-fence: CT 200 stopped', 'self-fence: VM 100 stopped']);
    expect(refreshed).toEqual(['refresh']);
  });

  it('refuses to start a fenced guest until the fence is lifted, and leaves the other guests alone', async () => {
    const { fence, commands, statuses } = await running(0, DB1);
    await commands['guest.create']({ guest: WEB1, allocate: [] }, context());
    fence.fence([{ type: 'qemu', vmid: 100 }], RENEWED);
    await fence.settled();
    await expect(commands['guest.start']({ guest: WEB1 }, context())).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining("VM 100: this node's HA lease ran out (self-fence)"),
    });
    expect(await statuses()).toEqual({ 100: 'stopped', 200: 'running' });
    fence.lift();
    await commands['guest.start']({ guest: WEB1 }, context());
    expect(await statuses()).toEqual({ 100: 'running', 200: 'running' });
  });

  it('starts an HA guest (ha: true) only while the lease covers it: an agent that could not fence it does not run it', async () => {
    const { fence, commands, statuses } = await running(0);
    await commands['guest.create']({ guest: WEB1, allocate: [] }, context());
    await expect(commands['guest.start']({ guest: WEB1, ha: true }, context())).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining("VM 100: this node's HA lease does not cover it yet"),
    });
    fence.cover([{ type: 'lxc', vmid: 100 }]);
    await expect(commands['guest.start']({ guest: WEB1, ha: true }, context())).rejects.toMatchObject({ code: 'unavailable' });
    expect(await statuses()).toEqual({ 100: 'stopped' });
    fence.cover([{ type: 'qemu', vmid: 100 }]);
    await commands['guest.start']({ guest: WEB1, ha: true }, context());
    expect(await statuses()).toEqual({ 100: 'running' });
    fence.fence([{ type: 'qemu', vmid: 100 }], RENEWED);
    await fence.settled();
    fence.lift();
    await expect(commands['guest.start']({ guest: WEB1, ha: true }, context())).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('does not cover it yet'),
    });
  });

  it('aborts a start under way when the fence comes: the start fails and the guest does not run', async () => {
    const { fence, commands, statuses } = await running(1);
    await commands['guest.create']({ guest: WEB1, allocate: [] }, context());
    const start = commands['guest.start']({ guest: WEB1 }, context()); // takes seconds at speed 1
    fence.fence([{ type: 'qemu', vmid: 100 }], RENEWED);
    await expect(start).rejects.toThrow();
    await fence.settled();
    expect(await statuses()).toEqual({ 100: 'stopped' });
  });

  it('kills again a guest that a start under way ran despite the abort (a qm already past its point of no return), and fails the start', async () => {
    const { sim, fence, statuses } = await running(0);
    await sim.create({ guest: WEB1, allocate: [] }, context());
    let fenceNow: () => void = () => undefined;
    const fenced = new Promise<void>((resolve) => (fenceNow = resolve));
    // The fence comes while this start is under way; it ignores its signal and starts the guest anyway.
    const start = fence.guard('qemu', 100, context(), async () => {
      fenceNow();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await sim.start(WEB1, context());
    });
    await fenced;
    fence.fence([{ type: 'qemu', vmid: 100 }], RENEWED);
    await expect(start).rejects.toMatchObject({ code: 'unavailable' });
    expect(await statuses()).toEqual({ 100: 'stopped' });
  });

  it('logs a guest it could not kill and still kills the others', async () => {
    const { logger, lines } = logged();
    const killed: number[] = [];
    const fence = new SelfFence(
      {
        kill: async (_type, vmid) => {
          if (vmid === 100) throw new Error('qm: VM 100 is locked');
          killed.push(vmid);
        },
      },
      logger,
    );
    fence.fence(
      [
        { type: 'qemu', vmid: 100 },
        { type: 'lxc', vmid: 200 },
      ],
      RENEWED,
    );
    await fence.settled();
    expect(killed).toEqual([200]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'self-fence: could not stop VM 100', error: 'qm: VM 100 is locked' }),
    );
  });
});

function qemuVm(vmid: number): GuestSpec {
  return {
    type: 'qemu',
    vmid,
    name: `fenced${vmid}`,
    memoryMiB: 64,
    cores: 1,
    sockets: 1,
    cpu: 'x86-64-v2-AES',
    template: false,
    nics: [],
    volumes: [
      {
        key: 'scsi0',
        volid: `local:${vmid}/vm-${vmid}-disk-0.qcow2`,
        path: `/var/lib/vz/images/${vmid}/vm-${vmid}-disk-0.qcow2`,
        format: 'qcow2',
        size: 16 * 1024 * 1024,
      },
    ],
    config: {},
  };
}

describe('the self-fence on real QEMU (TCG)', () => {
  let dir: string;
  let host: Host;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-fence-qemu-'));
    host = await openHost(dir);
  });
  afterAll(() => removeHostRoot(dir));

  it("kills the VM's QEMU when the lease runs out, even while another client holds its monitor", async () => {
    const qemu = new NativeQemu(host, undefined, { accelerator: 'tcg' });
    const guest = qemuVm(150);
    await qemu.create({ guest, allocate: ['scsi0'] }, context());
    await qemu.start(guest, context());
    const [listed] = await qemu.list(new AbortController().signal);
    const pid = listed?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    // A command holding QMP (QEMU serves one client at a time) would make a `quit` wait: the fence does not ask.
    const monitor = connect(qemuRuntimeFiles(host, 150).qmp);
    await once(monitor, 'connect');
    const { lines, logger } = logged();
    const fence = new SelfFence({ kill: (_type, vmid, killContext) => qemu.kill(vmid, killContext) }, logger);
    const lease = new HaLease({ fence, logger });
    lease.heartbeat();
    const started = performance.now();
    lease.grant({ type: 'lease', upTo: 1, ttlMs: FENCE_MARGIN_MS + 300, guests: [{ type: 'qemu', vmid: 150 }] });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (!lease.fenced) return;
        clearInterval(poll);
        resolve();
      }, 20);
    });
    await fence.settled();
    monitor.destroy();
    expect(performance.now() - started).toBeLessThan(5_000);
    // Gone, or a zombie where PID 1 reaps no orphans: either way no longer running the VM.
    expect(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')).toMatch(/^$|^\d+ \(.*\) Z/);
    expect(await qemu.list(new AbortController().signal)).toEqual([]);
    expect(lines.map((line) => line.msg)).toEqual([
      expect.stringMatching(/^self-fence: HA lease not renewed since .*; stopping HA guests VM 150$/),
      'self-fence: VM 150 stopped',
    ]);
    await qemu.destroy(guest, context());
  });
});
