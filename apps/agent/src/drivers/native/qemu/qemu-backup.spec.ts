import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestSpec, GuestVolume } from '@corral/protocol';
import { WEB1 } from '../../../../test-support/guest-specs.js';
import { removeHostRoot } from '../../../../test-support/host-roots.js';
import { CommandFailure } from '../../../host/command-failure.js';
import { openHost, type Host } from '../../../host/host.js';
import { runChecked, runProgram } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { NativeQemu } from './native-qemu.js';
import { QemuBackups } from './qemu-backup.js';

/*
 * Real QEMU under TCG and real archives in a temporary host root, test after test in order: VM 100
 * backed up stopped, then running in each mode, each backup restored into a new VM whose disk is
 * compared with the original's. afterAll kills every QEMU whose command line names the root.
 */

const MiB = 1024 * 1024;
const STORAGE = { path: '/var/lib/vz', mountpoint: false };
const CONFIG = 'memory: 64\nname: test100\nscsi0: local:100/vm-100-disk-0.qcow2,size=64M\n';

/** WEB1 made small for TCG, without its card (the host root has no bridge), with one disk of 64 MiB. */
function vm(vmid: number, volume: Partial<GuestVolume> = {}): GuestSpec {
  const format = volume.format ?? 'qcow2';
  const disk: GuestVolume = {
    key: 'scsi0',
    volid: `local:${vmid}/vm-${vmid}-disk-0.${format}`,
    path: `/var/lib/vz/images/${vmid}/vm-${vmid}-disk-0.${format}`,
    format,
    size: 64 * MiB,
    ...volume,
  };
  return { ...WEB1, vmid, name: `test${vmid}`, memoryMiB: 64, cores: 1, nics: [], volumes: [disk] };
}

describe('native VM backups with real QEMU (TCG)', () => {
  let dir: string;
  let host: Host;
  let qemu: NativeQemu;
  let log: string[];
  const controller = new AbortController();
  const context: CommandContext = { signal: controller.signal, log: (line) => log.push(line) };
  const web = vm(100);
  const image = (guest: GuestSpec) => join(dir, guest.volumes[0]?.path ?? '');
  const dump = () => readdir(join(dir, 'var/lib/vz/dump')).catch(() => []);
  const listed = async (vmid: number) => (await qemu.list(controller.signal)).find((guest) => guest.vmid === vmid);
  /** Whether two disks read the same; `-U` reads a running VM's. */
  const same = async (a: GuestSpec, b: GuestSpec) =>
    (
      await runProgram(
        'qemu-img',
        ['compare', '-U', '-f', a.volumes[0]?.format ?? '', '-F', b.volumes[0]?.format ?? '', image(a), image(b)],
        { signal: controller.signal },
      )
    ).code === 0;
  const backup = (mode: 'snapshot' | 'suspend' | 'stop', backups = qemu.backups) =>
    backups.backup({ guest: web, config: CONFIG, mode, compress: 'zstd', storage: STORAGE, notes: `${mode} backup` }, context);
  const restore = (file: string, guest: GuestSpec, keys = ['scsi0']) =>
    qemu.backups.restore({ guest, storage: STORAGE, file, restore: keys }, context);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-qemu-backup-'));
    host = await openHost(dir);
    qemu = new NativeQemu(host, undefined, { accelerator: 'tcg' });
    await qemu.create({ guest: web, allocate: ['scsi0'] }, { signal: controller.signal, log: () => undefined });
    // Known bytes in two places, the rest of the disk never written.
    await runChecked('qemu-io', ['-f', 'qcow2', '-c', 'write -P 0x11 0 4M', '-c', 'write -P 0x22 40M 1M', image(web)], {
      signal: controller.signal,
    });
  });
  beforeEach(() => {
    log = [];
  });
  afterAll(() => removeHostRoot(dir));

  it('backs up a stopped VM into a zstd archive with its log and notes, leaving nothing hidden, and reads its config back', async () => {
    const result = await backup('snapshot');
    expect(result).toMatchObject({
      file: expect.stringMatching(/^dump\/vzdump-qemu-100-\d{4}_\d{2}_\d{2}-\d{2}_\d{2}_\d{2}\.tar\.zst$/),
      mode: 'stop',
    });
    const name = result.file.slice('dump/'.length);
    expect((await dump()).sort()).toEqual([name.replace('.tar.zst', '.log'), name, `${name}.notes`]);
    expect((await stat(join(dir, 'var/lib/vz', result.file))).size).toBe(result.size);
    expect(log).toContain('INFO: backup mode: stop');
    await expect(qemu.backups.config({ storage: STORAGE, file: result.file }, context)).resolves.toEqual({
      type: 'qemu',
      vmid: 100,
      config: CONFIG,
    });
  });

  it('restores the backup into new VMs, as qcow2 and as raw, with the same content', async () => {
    const [file = ''] = (await dump()).filter((name) => name.endsWith('.tar.zst'));
    await restore(`dump/${file}`, vm(110));
    await restore(`dump/${file}`, vm(111, { format: 'raw' }));
    expect(await same(web, vm(110))).toBe(true);
    expect(await same(web, vm(111, { format: 'raw' }))).toBe(true);
    expect(log).toContain("map 'scsi0' to '/var/lib/vz/images/110/vm-110-disk-0.qcow2'");
  });

  it('refuses a restore onto an existing volume, or of a disk the archive lacks, creating nothing', async () => {
    const [file = ''] = (await dump()).filter((name) => name.endsWith('.tar.zst'));
    await expect(restore(`dump/${file}`, vm(110))).rejects.toThrow(
      'VM 110: volume scsi0 already exists (/var/lib/vz/images/110/vm-110-disk-0.qcow2)',
    );
    const twoDisks = vm(112);
    twoDisks.volumes.push({
      key: 'scsi1',
      volid: 'local:112/vm-112-disk-1.qcow2',
      path: '/var/lib/vz/images/112/vm-112-disk-1.qcow2',
      format: 'qcow2',
      size: MiB,
    });
    await expect(restore(`dump/${file}`, twoDisks, ['scsi0', 'scsi1'])).rejects.toThrow(/scsi1\.qcow2: Not found in archive/);
    await expect(stat(join(dir, 'var/lib/vz/images/112'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await dump()).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('backs up the running VM in snapshot mode without stopping or pausing it: the archive holds the disk as it was', async () => {
    await qemu.start(web, context);
    const before = await listed(100);
    const { file, mode } = await backup('snapshot');
    expect(mode).toBe('snapshot');
    expect(log).toEqual(
      expect.arrayContaining(['INFO: backup mode: snapshot', expect.stringMatching(/^INFO: status: 100% \(64\.0 MiB of 64\.0 MiB\)$/)]),
    );
    expect(await listed(100)).toMatchObject({ status: 'running', pid: before?.pid });
    expect(await qemu.monitor(100, 'info block-jobs', context)).toContain('No active jobs');
    // Written after the backup: the restored disk must not have it.
    await qemu.monitor(100, 'qemu-io drive-scsi0 "write -P 0x55 0 1M"', context);
    await restore(file, vm(113));
    expect(await same(vm(110), vm(113))).toBe(true);
    expect(await same(web, vm(113))).toBe(false);
  });

  it('leaves no archive, no hidden files and no backup job when stopped midway, the VM running on', async () => {
    const pid = (await listed(100))?.pid;
    const archives = await dump();
    const aborting = new AbortController();
    const backups = new QemuBackups(host, qemu);
    const stopped = backups.backup(
      { guest: web, config: CONFIG, mode: 'snapshot', compress: 'zstd', storage: STORAGE },
      {
        signal: aborting.signal,
        log: (line) => {
          if (line.startsWith('INFO: started backup task')) aborting.abort(new CommandFailure('timeout', 'stopped by the test'));
        },
      },
    );
    await expect(stopped).rejects.toThrow('stopped by the test');
    expect(await dump()).toEqual(archives);
    expect(await qemu.monitor(100, 'info block-jobs', context)).toContain('No active jobs');
    expect(await qemu.monitor(100, 'info block', context)).not.toContain('backup-target');
    expect(await listed(100)).toMatchObject({ status: 'running', pid });
  });

  it('pauses the running VM for a suspend mode backup and resumes it; a paused VM stays paused even in stop mode', async () => {
    const pid = (await listed(100))?.pid;
    await expect(backup('suspend')).resolves.toMatchObject({ mode: 'suspend' });
    expect(log).toEqual(expect.arrayContaining(['INFO: suspending guest', 'INFO: resuming guest']));
    expect(await listed(100)).toMatchObject({ status: 'running', pid });
    await qemu.suspend(100, context);
    await expect(backup('stop')).resolves.toMatchObject({ mode: 'suspend' });
    expect(await listed(100)).toMatchObject({ status: 'paused', pid });
    await qemu.resume(100, context);
  });

  it('stops the running VM for a stop mode backup and starts it again', async () => {
    const pid = (await listed(100))?.pid;
    const { file } = await backup('stop', new QemuBackups(host, qemu, { stopWaitS: 1 }));
    expect(log).toEqual(expect.arrayContaining(['INFO: stopping virtual guest', 'INFO: restarting vm']));
    const after = await listed(100);
    expect(after).toMatchObject({ status: 'running' });
    expect(after?.pid).not.toBe(pid);
    await qemu.stop(100, context);
    await restore(file, vm(114));
    expect(await same(web, vm(114))).toBe(true);
  });

  it("backs up a linked clone's whole disk, its base's content with it", async () => {
    await qemu.template(web, context);
    const linked = vm(120, { base: web.volumes[0]?.path });
    await qemu.clone({ source: { ...web, template: true }, target: linked }, context);
    const { file } = await qemu.backups.backup(
      { guest: linked, config: CONFIG, mode: 'snapshot', compress: 'gzip', storage: STORAGE },
      context,
    );
    await restore(file, vm(121));
    expect(await same(web, vm(121))).toBe(true);
    expect((await runChecked('qemu-img', ['info', image(vm(121))], { signal: controller.signal })).stdout).not.toContain('backing file');
  });
});
