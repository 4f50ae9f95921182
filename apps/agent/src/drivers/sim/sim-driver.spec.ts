import type { GuestSpec, ParamsOf } from '@corral/protocol';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suspendedContainerLog } from '../../../test-support/backup-logs.js';
import { DB1, GIB, WEB1 } from '../../../test-support/guest-specs.js';
import { openHost, type Host } from '../../host/host.js';
import { runChecked } from '../../host/run-program.js';
import type { CommandContext } from '../command-context.js';
import { SimDriver } from './sim-driver.js';
import { simStatePath } from './sim-state.js';
import { backupTime, createTime, DEFAULT_SIM_TIMING, restoreTime } from './sim-timing.js';

/** A running guest's traffic counters, which grow with its uptime. */
const COUNTERS = { netin: expect.any(Number), netout: expect.any(Number), diskread: expect.any(Number), diskwrite: expect.any(Number) };

describe('the sim driver', () => {
  let dir: string;
  let host: Host;
  let lines: string[];
  let context: CommandContext;
  const instant = () => new SimDriver(host, { stateDir: dir, speed: 0 });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-sim-'));
    host = await openHost(dir);
    lines = [];
    context = { signal: new AbortController().signal, log: (line) => lines.push(line) };
  });
  afterEach(async () => {
    jest.useRealTimers();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a stopped guest, logging its volumes as the native driver does, and starts it with a stable pid, a growing uptime and plausible figures', async () => {
    jest.useFakeTimers({ now: new Date('2025-03-01T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const sim = instant();
    await sim.create({ guest: WEB1, allocate: ['scsi0'] }, context);
    await sim.create({ guest: DB1, allocate: ['rootfs'], ostemplate: '/var/lib/vz/template/cache/debian-12.tar.zst' }, context);
    expect(lines).toEqual([
      `Formatting '/var/lib/vz/images/100/vm-100-disk-0.qcow2', fmt=qcow2 cluster_size=65536 extended_l2=off compression_type=zlib size=${32 * GIB} lazy_refcounts=off refcount_bits=16`,
      "extracting archive '/var/lib/vz/template/cache/debian-12.tar.zst'",
    ]);
    expect(await sim.list()).toEqual([
      { vmid: 100, type: 'qemu', status: 'stopped', uptime: 0, cpu: 0, mem: 0 },
      { vmid: 200, type: 'lxc', status: 'stopped', uptime: 0, cpu: 0, mem: 0 },
    ]);

    await sim.start(WEB1, context);
    const [first] = await sim.list();
    jest.setSystemTime(Date.now() + 90_000);
    const [later] = await sim.list();
    expect(first).toEqual({
      vmid: 100,
      type: 'qemu',
      status: 'running',
      pid: expect.any(Number),
      uptime: 0,
      cpu: expect.any(Number),
      mem: expect.any(Number),
      netin: 0,
      netout: 0,
      diskread: 0,
      diskwrite: 0,
    });
    expect(later).toEqual({ ...first, uptime: 90, cpu: expect.any(Number), ...COUNTERS });
    // Its counters grow with its uptime.
    for (const counter of ['netin', 'netout', 'diskread', 'diskwrite'] as const) expect(later?.[counter]).toBeGreaterThan(0);
    for (const runtime of [first, later]) {
      expect(runtime?.cpu).toBeGreaterThan(0);
      expect(runtime?.cpu).toBeLessThan(0.05);
      expect(runtime?.mem).toBeGreaterThan(0.1 * 2048 * 1024 ** 2);
      expect(runtime?.mem).toBeLessThan(2048 * 1024 ** 2);
    }
  });

  it('simulates the volumes of existing guests: new ones refused where taken, moves refused while running, the volume ids kept in its state', async () => {
    const sim = instant();
    await sim.create({ guest: WEB1, allocate: ['scsi0'] }, context);
    const [disk] = WEB1.volumes;
    if (disk === undefined) throw new Error('WEB1 has a disk');
    const added = { ...disk, key: 'scsi1', volid: 'local:100/vm-100-disk-1.qcow2', path: '/var/lib/vz/images/100/vm-100-disk-1.qcow2' };
    await sim.volumes.allocate({ type: 'qemu', vmid: 100, volumes: [added] }, context);
    await expect(sim.volumes.allocate({ type: 'qemu', vmid: 100, volumes: [added] }, context)).rejects.toThrow(
      'VM 100: volume scsi1 already exists',
    );
    await expect(sim.volumes.allocate({ type: 'lxc', vmid: 300, volumes: [added] }, context)).rejects.toThrow(
      'CT 300 does not exist on this host',
    );
    await sim.start(WEB1, context);
    await sim.volumes.resize({ type: 'qemu', vmid: 100, volume: added, size: 2 * GIB }, context);
    expect(lines).toContain('scsi1 (local:100/vm-100-disk-1.qcow2) resized to 2147483648 bytes online');
    const moved = { ...added, volid: 'local:100/vm-100-disk-1.raw', format: 'raw' as const };
    await expect(
      sim.volumes.move({ type: 'qemu', vmid: 100, source: added, target: moved, targetVmid: 100, delete: true }, context),
    ).rejects.toThrow('VM 100 is running: move its disks once it is stopped');
    await sim.stop('qemu', 100, context);
    await sim.volumes.move({ type: 'qemu', vmid: 100, source: added, target: moved, targetVmid: 100, delete: true }, context);
    await sim.volumes.free({ type: 'qemu', vmid: 100, volumes: [moved] }, context);
    const saved = JSON.parse(await readFile(simStatePath(dir), 'utf8')) as { guests: { volids: string[] }[] };
    expect(saved.guests[0]?.volids).toEqual([disk.volid]);
  });

  it('refuses what the native driver refuses, with its messages', async () => {
    const sim = instant();
    await sim.create({ guest: WEB1, allocate: ['scsi0'] }, context);
    await sim.create({ guest: DB1, allocate: ['rootfs'] }, context);
    await expect(sim.create({ guest: { ...WEB1, vmid: 101 }, allocate: ['scsi0'] }, context)).rejects.toThrow(
      'VM 101: volume scsi0 already exists (/var/lib/vz/images/100/vm-100-disk-0.qcow2)',
    );
    await expect(sim.create({ guest: { ...DB1, vmid: 201 }, allocate: ['rootfs'] }, context)).rejects.toThrow(
      'volume local:200/subvol-200-disk-0 already exists at /var/lib/vz/images/200/subvol-200-disk-0 and is not empty',
    );
    await expect(sim.create({ guest: DB1, allocate: [] }, context)).rejects.toThrow('CT 200 already exists on this host');
    await expect(sim.start({ ...WEB1, template: true }, context)).rejects.toThrow(/^VM 100 is a template$/);
    await expect(sim.suspend('qemu', 100, context)).rejects.toThrow('VM 100 is not running');
    await expect(sim.resume('lxc', 200, context)).rejects.toThrow('CT 200 is not running');
    await expect(sim.reboot({ guest: WEB1, timeout: 60 }, context)).rejects.toThrow('VM 100 is not running');
    await sim.start(WEB1, context);
    await sim.start(DB1, context);
    await expect(sim.start(WEB1, context)).rejects.toThrow('VM 100 is already running');
    await expect(sim.start(DB1, context)).rejects.toThrow('CT 200 is already running');
    await expect(sim.destroy(WEB1, context)).rejects.toThrow('VM 100 is running: stop it before destroying it');
    await expect(sim.destroy(DB1, context)).rejects.toThrow('CT 200 is running: stop it before destroying it');
    await expect(sim.template(WEB1, context)).rejects.toThrow('VM 100 is running: make a template of it once it is stopped');
    await expect(sim.clone({ source: DB1, target: { ...DB1, vmid: 201, volumes: [] } }, context)).rejects.toThrow(
      'CT 200 is running: a full clone needs it stopped',
    );
    await expect(sim.reset(200, context)).rejects.toMatchObject({
      code: 'invalid-params',
      message: 'CT 200 is a container: containers have no reset',
    });
    await expect(sim.monitor(200, 'info status', context)).rejects.toMatchObject({
      code: 'invalid-params',
      message: 'CT 200 is a container: containers have no monitor',
    });
    expect((await sim.list()).map((guest) => guest.status)).toEqual(['running', 'running']);
  });

  it('pauses and resumes, answers the monitor, stops, and destroys a stopped guest', async () => {
    const sim = instant();
    await sim.create({ guest: WEB1, allocate: ['scsi0'] }, context);
    await sim.start(WEB1, context);
    const [running] = await sim.list();
    await sim.suspend('qemu', 100, context);
    expect(await sim.monitor(100, 'info  status', context)).toBe('VM status: paused\r\n');
    expect((await sim.list())[0]).toEqual(expect.objectContaining({ status: 'paused', pid: running?.pid, cpu: 0 }));
    await sim.resume('qemu', 100, context);
    expect(await sim.monitor(100, 'info status', context)).toBe('VM status: running\r\n');
    await sim.stop('qemu', 100, context);
    await sim.stop('qemu', 100, context);
    lines.length = 0;
    await sim.destroy(WEB1, context);
    expect(lines).toEqual(['removed local:100/vm-100-disk-0.qcow2']);
    expect(await sim.list()).toEqual([]);
    await expect(sim.create({ guest: WEB1, allocate: ['scsi0'] }, context)).resolves.toBeUndefined();
  });

  it('shuts down within the timeout, or fails saying the guest still runs, or stops it with forceStop', async () => {
    const sim = instant();
    await sim.start(WEB1, context);
    lines.length = 0;
    await expect(sim.shutdown({ type: 'qemu', vmid: 100, timeout: 0, forceStop: false }, context)).rejects.toThrow(
      'VM 100 is still running after 0 s (shutdown timed out)',
    );
    expect((await sim.list())[0]?.status).toBe('running');
    await sim.shutdown({ type: 'qemu', vmid: 100, timeout: 0, forceStop: true }, context);
    expect(lines).toEqual(['VM 100 did not shut down within 0 s: stopping it']);
    await sim.start(WEB1, context);
    await sim.shutdown({ type: 'qemu', vmid: 100, timeout: 60, forceStop: false }, context);
    expect((await sim.list())[0]?.status).toBe('stopped');
    await sim.shutdown({ type: 'qemu', vmid: 100, timeout: 60, forceStop: false }, context);
    expect(lines.at(-1)).toBe('VM 100 is not running');
  });

  it('refuses to shut a paused VM down unless forced, and thaws a paused container so that it can', async () => {
    const sim = instant();
    await sim.start(WEB1, context);
    await sim.start(DB1, context);
    await sim.suspend('qemu', 100, context);
    await sim.suspend('lxc', 200, context);
    lines.length = 0;
    await expect(sim.shutdown({ type: 'qemu', vmid: 100, timeout: 60, forceStop: false }, context)).rejects.toThrow(
      'VM 100 is paused and cannot shut down (resume it first, or force the stop)',
    );
    await sim.shutdown({ type: 'qemu', vmid: 100, timeout: 60, forceStop: true }, context);
    await sim.shutdown({ type: 'lxc', vmid: 200, timeout: 60, forceStop: false }, context);
    expect(lines).toEqual(['VM 100 is paused: stopping it', 'CT 200 is paused: resuming it so that it can shut down']);
    expect((await sim.list()).map((guest) => guest.status)).toEqual(['stopped', 'stopped']);
  });

  it('reboots a running guest into a new process; a stopped container is simply started, as natively', async () => {
    const sim = instant();
    await sim.start(WEB1, context);
    const [before] = await sim.list();
    await sim.reboot({ guest: WEB1, timeout: 60 }, context);
    const [after] = await sim.list();
    expect(after?.status).toBe('running');
    expect(after?.pid).not.toBe(before?.pid);
    await sim.reboot({ guest: DB1, timeout: 60 }, context);
    expect((await sim.list()).map((guest) => guest.status)).toEqual(['running', 'running']);
  });

  it('clones a stopped guest into a new stopped one and refuses a volume that exists', async () => {
    const sim = instant();
    await sim.create({ guest: WEB1, allocate: ['scsi0'] }, context);
    await sim.template({ ...WEB1, template: true }, context);
    expect(lines.at(-1)).toBe('local:100/vm-100-disk-0.qcow2 is read-only');
    await expect(sim.start({ ...WEB1, template: true }, context)).rejects.toThrow('VM 100 is a template');
    const target: GuestSpec = {
      ...WEB1,
      vmid: 101,
      name: 'web2',
      volumes: [
        {
          key: 'scsi0',
          volid: 'local:101/vm-101-disk-0.qcow2',
          path: '/var/lib/vz/images/101/vm-101-disk-0.qcow2',
          format: 'qcow2',
          size: 32 * GIB,
          base: '/var/lib/vz/images/100/vm-100-disk-0.qcow2',
        },
      ],
    };
    await sim.clone({ source: WEB1, target }, context);
    expect(lines.at(-1)).toBe(
      `Formatting '/var/lib/vz/images/101/vm-101-disk-0.qcow2', fmt=qcow2 cluster_size=65536 extended_l2=off compression_type=zlib size=${32 * GIB} backing_file=/var/lib/vz/images/100/vm-100-disk-0.qcow2 backing_fmt=qcow2 lazy_refcounts=off refcount_bits=16`,
    );
    expect((await sim.list()).map((guest) => [guest.vmid, guest.status])).toEqual([
      [100, 'stopped'],
      [101, 'stopped'],
    ]);
    await expect(sim.clone({ source: WEB1, target }, context)).rejects.toThrow(
      'VM 101: volume scsi0 already exists (/var/lib/vz/images/101/vm-101-disk-0.qcow2)',
    );
  });

  it('keeps snapshot names per guest in its state, refusing what the native driver refuses; a rollback with the state runs the VM', async () => {
    const sim = instant();
    await sim.create({ guest: WEB1, allocate: ['scsi0'] }, context);
    await sim.snapshots.create({ guest: WEB1, snapname: 'first', vmstate: false }, context);
    expect(lines.at(-1)).toBe("local:100/vm-100-disk-0.qcow2: created snapshot 'first'");
    await expect(sim.snapshots.create({ guest: WEB1, snapname: 'first', vmstate: false }, context)).rejects.toThrow(
      "snapshot name 'first' already used",
    );
    const raw: GuestSpec = {
      ...WEB1,
      volumes: [
        { key: 'scsi0', volid: 'local:100/vm-100-disk-0.raw', path: '/var/lib/vz/images/100/vm-100-disk-0.raw', format: 'raw', size: GIB },
      ],
    };
    await expect(sim.snapshots.create({ guest: raw, snapname: 'second', vmstate: false }, context)).rejects.toThrow(
      'snapshot feature is not available',
    );
    await expect(sim.snapshots.rollback({ guest: WEB1, snapname: 'nothing', vmstate: false, start: false }, context)).rejects.toThrow(
      "snapshot 'nothing' does not exist",
    );
    // A restarted agent still knows them.
    const again = instant();
    await again.snapshots.rollback({ guest: WEB1, snapname: 'first', vmstate: true, start: false }, context);
    expect((await again.list()).map((guest) => [guest.vmid, guest.status])).toEqual([[100, 'running']]);
    await expect(again.snapshots.rollback({ guest: WEB1, snapname: 'first', vmstate: false, start: false }, context)).rejects.toThrow(
      'VM 100 is running: stop it before rolling it back',
    );
    await again.snapshots.delete({ guest: WEB1, snapname: 'first' }, context);
    await again.stop('qemu', 100, context);
    await expect(again.snapshots.rollback({ guest: WEB1, snapname: 'first', vmstate: false, start: false }, context)).rejects.toThrow(
      "snapshot 'first' does not exist",
    );
  });

  it('keeps its guests in its state directory, never elsewhere on the host: two agents on one machine share none', async () => {
    const [first, second] = [join(dir, 'agent1'), join(dir, 'agent2')];
    await new SimDriver(host, { stateDir: first, speed: 0 }).create({ guest: WEB1, allocate: ['scsi0'] }, context);
    expect(await new SimDriver(host, { stateDir: first, speed: 0 }).list()).toEqual([expect.objectContaining({ vmid: 100 })]);
    expect(await new SimDriver(host, { stateDir: second, speed: 0 }).list()).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['agent1']);
  });

  it('keeps its guests in a state file, so that a restarted agent finds the running ones with their pid and uptime', async () => {
    jest.useFakeTimers({ now: new Date('2025-03-01T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const first = instant();
    await first.create({ guest: WEB1, allocate: ['scsi0'] }, context);
    await first.start(WEB1, context);
    const [running] = await first.list();
    jest.setSystemTime(Date.now() + 60_000);
    const restarted = instant();
    expect((await restarted.list())[0]).toEqual({ ...running, uptime: 60, cpu: expect.any(Number), ...COUNTERS });
    await expect(restarted.start(WEB1, context)).rejects.toThrow('VM 100 is already running');
    await restarted.start({ ...DB1, vmid: 300 }, context);
    expect((await restarted.list()).map((guest) => guest.pid)).toEqual([running?.pid, (running?.pid ?? 0) + 1]);
    expect(JSON.parse(await readFile(simStatePath(dir), 'utf8'))).toEqual(expect.objectContaining({ guests: expect.any(Array) }));
  });

  it('refuses to start on a state file that is not its own, saying what to do', async () => {
    await writeFile(simStatePath(dir), '{"guests": 3}');
    await expect(instant().list()).rejects.toThrow(`${simStatePath(dir)} is not the simulator's state`);
  });

  it('takes the simulated time at speed 1 and scales it with the speed', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    for (const [speed, startMs] of [
      [1, DEFAULT_SIM_TIMING.startMs],
      [2, 2 * DEFAULT_SIM_TIMING.startMs],
    ] as const) {
      const sim = new SimDriver(host, { stateDir: dir, speed });
      await sim.list();
      let started = false;
      const starting = sim.start({ ...WEB1, vmid: 100 + speed }, context).then(() => (started = true));
      await jest.advanceTimersByTimeAsync(startMs - 1);
      expect(started).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await starting;
    }
  });

  it('leaves the guest as it was when the request is cancelled midway', async () => {
    const sim = new SimDriver(host, { stateDir: dir, speed: 1, timing: { startMs: 60_000 } });
    const controller = new AbortController();
    const starting = sim.start(WEB1, { ...context, signal: controller.signal });
    controller.abort(new Error('the request was cancelled'));
    await expect(starting).rejects.toThrow('the request was cancelled');
    expect(await sim.list()).toEqual([]);
  });

  it('migrates a running VM between two simulated nodes, and a stopped one offline, refusing what the native driver refuses', async () => {
    const target = await openHost(await mkdtemp(join(dir, 'target-')));
    const [from, to] = [instant(), new SimDriver(target, { stateDir: target.root, speed: 0 })];
    const volids = { scsi0: 'local:100/vm-100-disk-0.qcow2' };
    const send = (online: boolean) => ({
      guest: WEB1,
      copy: ['scsi0'],
      online,
      target: { node: 'sim2', address: '192.0.2.12', nbdPort: 0, volids },
    });
    await from.create({ guest: WEB1, allocate: ['scsi0'] }, context);
    await expect(from.migration.send(send(true), context)).rejects.toThrow('VM 100 is not running');
    await from.start(WEB1, context);
    await from.suspend('qemu', 100, context);
    await expect(from.migration.send(send(false), context)).rejects.toThrow('VM 100 is running: migrate it online');

    await expect(to.migration.receive({ guest: WEB1, copy: ['scsi0'], online: true, listen: '192.0.2.12' }, context)).resolves.toEqual({
      nbdPort: 0,
      migrationPort: 0,
    });
    expect(await to.list()).toEqual([]);
    await expect(from.migration.send(send(true), context)).resolves.toEqual({ state: 'paused' });
    await to.migration.finish({ guest: WEB1, copy: ['scsi0'], state: 'paused' }, context);
    expect(await from.list()).toEqual([]);
    expect(await to.list()).toEqual([expect.objectContaining({ vmid: 100, status: 'paused' })]);
    expect(lines).toContain('copying local:100/vm-100-disk-0.qcow2 to node sim2');
    await expect(to.migration.receive({ guest: WEB1, copy: ['scsi0'], online: true, listen: '192.0.2.12' }, context)).rejects.toThrow(
      'VM 100 already exists on this node',
    );

    await to.stop('qemu', 100, context);
    await from.migration.receive({ guest: WEB1, copy: ['scsi0'], online: false, listen: '192.0.2.11' }, context);
    await expect(to.migration.send(send(false), context)).resolves.toEqual({ state: 'stopped' });
    await from.migration.finish({ guest: WEB1, copy: ['scsi0'], state: 'stopped' }, context);
    expect(await to.list()).toEqual([]);
    expect(await from.list()).toEqual([{ vmid: 100, type: 'qemu', status: 'stopped', uptime: 0, cpu: 0, mem: 0 }]);
  });

  it('takes longer to create larger volumes, up to a limit', () => {
    expect(createTime(DEFAULT_SIM_TIMING, WEB1, [])).toBe(300);
    expect(createTime(DEFAULT_SIM_TIMING, WEB1, ['scsi0'])).toBe(300 + 32 * 100);
    expect(
      createTime(
        DEFAULT_SIM_TIMING,
        { ...WEB1, volumes: [{ key: 'scsi0', volid: 'local:1', path: '/x', format: 'raw', size: 1024 * GIB }] },
        ['scsi0'],
      ),
    ).toBe(DEFAULT_SIM_TIMING.createMaxMs);
    expect(backupTime(DEFAULT_SIM_TIMING, WEB1, ['scsi0'])).toBe(1_000 + 32 * 1_000);
    expect(restoreTime(DEFAULT_SIM_TIMING, DB1, ['rootfs'])).toBe(500 + 8 * 500);
  });

  describe('backups', () => {
    const storage = { path: '/var/lib/vz', mountpoint: false };
    /** db1 with a mount point, which backups leave out. */
    const CT: GuestSpec = {
      ...DB1,
      volumes: [
        ...DB1.volumes,
        {
          key: 'mp0',
          volid: 'local:200/subvol-200-disk-1',
          path: '/var/lib/vz/images/200/subvol-200-disk-1',
          format: 'subvol',
          size: 2 * GIB,
        },
      ],
      config: { ...DB1.config, mp0: 'local:200/subvol-200-disk-1,mp=/srv/data,size=2G' },
    };
    const backup = (guest: GuestSpec, mode: ParamsOf<'guest.backup'>['mode'], notes?: string): ParamsOf<'guest.backup'> => ({
      guest,
      config: `hostname: ${guest.name}\n`,
      mode,
      compress: 'zstd',
      storage,
      ...(notes === undefined ? {} : { notes }),
    });
    const dump = () => readdir(join(dir, 'var/lib/vz/dump')).catch(() => []);

    it('backs up a running container as vzdump does: snapshot falls back to suspend, and it runs again after', async () => {
      const sim = instant();
      await sim.create({ guest: CT, allocate: ['rootfs', 'mp0'] }, context);
      await sim.start(CT, context);
      const [before] = await sim.list();
      lines.length = 0;
      const result = await sim.backups.backup(backup(CT, 'snapshot', 'before the upgrade'), context);

      expect(result).toEqual({
        file: expect.stringMatching(/^dump\/vzdump-lxc-200-\d{4}_\d{2}_\d{2}-\d{2}_\d{2}_\d{2}\.tar\.zst$/),
        size: expect.any(Number),
        mode: 'suspend',
      });
      expect(lines).toEqual(suspendedContainerLog(`INFO: creating vzdump archive '/var/lib/vz/${result.file}'`));
      expect(await sim.list()).toEqual([{ ...before, cpu: expect.any(Number) }]);
      const name = result.file.slice('dump/'.length);
      expect((await dump()).sort()).toEqual([name.replace(/\.tar\.zst$/, '.log'), name, `${name}.notes`]);
      expect((await stat(join(dir, 'var/lib/vz', result.file))).size).toBe(result.size);

      // A paused guest stays paused: `stop` would run it again after.
      await sim.suspend('lxc', 200, context);
      await expect(sim.backups.backup({ ...backup(CT, 'stop'), compress: 'gzip' }, context)).resolves.toMatchObject({ mode: 'suspend' });
      expect((await sim.list())[0]?.status).toBe('paused');
    });

    it('gives two backups of a guest in one second archives of their own (two vzdump --all one after the other)', async () => {
      const sim = instant();
      await sim.create({ guest: WEB1, allocate: ['scsi0'] }, context);
      const first = await sim.backups.backup(backup(WEB1, 'snapshot'), context);
      const second = await sim.backups.backup(backup(WEB1, 'snapshot'), context);
      expect(second.file).not.toBe(first.file);
      expect((await dump()).filter((name) => name.endsWith('.tar.zst'))).toHaveLength(2);
    });

    it('writes a real archive holding only the config and a note that it is simulated, which restores register as a create does', async () => {
      const sim = instant();
      await sim.create({ guest: WEB1, allocate: ['scsi0'] }, context);
      const { file, mode } = await sim.backups.backup(backup(WEB1, 'snapshot'), context);
      expect(mode).toBe('stop');
      const archive = join(dir, 'var/lib/vz', file);
      expect((await runChecked('tar', ['-tf', archive], { signal: context.signal })).stdout).toBe('qemu-server.conf\nSIMULATED\n');
      expect((await runChecked('tar', ['-xOf', archive, 'SIMULATED'], { signal: context.signal })).stdout).toContain(
        "the Corral agent's sim driver",
      );
      await expect(sim.backups.config({ storage, file }, context)).resolves.toEqual({
        type: 'qemu',
        vmid: 100,
        config: 'hostname: web1\n',
      });

      const restore = { guest: WEB1, storage, file, restore: ['scsi0'] };
      await expect(sim.backups.restore(restore, context)).rejects.toThrow(
        'VM 100: volume scsi0 already exists (/var/lib/vz/images/100/vm-100-disk-0.qcow2)',
      );
      await sim.destroy(WEB1, context);
      await sim.backups.restore(restore, context);
      expect(await sim.list()).toEqual([{ vmid: 100, type: 'qemu', status: 'stopped', uptime: 0, cpu: 0, mem: 0 }]);
      await expect(sim.create({ guest: { ...WEB1, vmid: 101 }, allocate: ['scsi0'] }, context)).rejects.toThrow(
        'VM 101: volume scsi0 already exists',
      );
    });

    it('refuses what the native driver refuses: an archive of the other guest type, a container volume other than its root', async () => {
      const sim = instant();
      const { file } = await sim.backups.backup(backup(CT, 'stop'), context);
      await expect(sim.backups.restore({ guest: WEB1, storage, file, restore: ['scsi0'] }, context)).rejects.toMatchObject({
        code: 'invalid-params',
        message: `${file} is not a backup of a VM: it cannot restore VM 100`,
      });
      await expect(sim.backups.restore({ guest: CT, storage, file, restore: ['rootfs', 'mp0'] }, context)).rejects.toThrow(
        "CT 200: a container's backup holds only its root file system (rootfs), not mp0",
      );
      await expect(
        sim.backups.restore({ guest: CT, storage, file: 'dump/vzdump-lxc-200-2025_01_31-02_00_00.tar', restore: ['rootfs'] }, context),
      ).rejects.toThrow('backup archive dump/vzdump-lxc-200-2025_01_31-02_00_00.tar does not exist');
      await sim.backups.restore({ guest: CT, storage, file, restore: ['rootfs'] }, context);
      expect(lines.at(-1)).toBe(`extracting archive '/var/lib/vz/${file}'`);
      await expect(
        sim.backups.backup({ ...backup(CT, 'stop'), storage: { path: '/mnt/backups', mountpoint: true } }, context),
      ).rejects.toThrow('storage path /mnt/backups is not a mounted file system');
    });

    it('takes the simulated time, and a cancelled backup leaves nothing behind and the guest running again', async () => {
      const sim = new SimDriver(host, { stateDir: dir, speed: 1, timing: { backupMs: 60_000, startMs: 0, shutdownMs: 0 } });
      await sim.start(WEB1, context);
      const controller = new AbortController();
      // Cancelled once the copy has begun, 60 s of simulated time before its end.
      const log = (line: string) => {
        lines.push(line);
        if (line.startsWith('INFO: creating vzdump archive')) controller.abort(new Error('the request was cancelled'));
      };
      await expect(sim.backups.backup(backup(WEB1, 'stop'), { signal: controller.signal, log })).rejects.toThrow(
        'the request was cancelled',
      );
      expect(lines.slice(-2)).toEqual([expect.stringMatching(/^INFO: creating vzdump archive/), 'INFO: restarting vm']);
      expect(await dump()).toEqual([]);
      expect((await sim.list())[0]?.status).toBe('running');
    });
  });
});
