import type { GuestSpec } from '@corral/protocol';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB1, GIB, WEB1 } from '../../../test-support/guest-specs.js';
import { ProcessFigures } from '../../host/process-figures.js';
import { runChecked } from '../../host/run-program.js';
import type { CommandContext } from '../command-context.js';
import { PveDriver } from './pve-driver.js';

// No PVE host here: `qm`, `pct` and `vzdump` are stand-ins first on the PATH that record their
// arguments and standard input and answer (and write) what the test put in canned.json, and /proc
// is a directory of the test's.

/** web1 with two more disks, one of them an existing image, and the PVE config that qm gets. */
const VM: GuestSpec = {
  ...WEB1,
  volumes: [
    ...WEB1.volumes,
    { key: 'scsi1', volid: 'local-lvm:vm-100-disk-1', path: '/dev/pve/vm-100-disk-1', format: 'raw', size: 1.5 * GIB },
    { key: 'virtio2', volid: 'local:iso/old-disk.raw', path: '/var/lib/vz/images/old-disk.raw', format: 'raw', size: 4 * GIB },
  ],
  config: {
    name: 'web1',
    memory: '2048',
    net0: 'virtio=BC:24:11:3A:5F:01,bridge=vmbr0',
    scsi0: 'local:100/vm-100-disk-0.qcow2,iothread=1,size=32G',
    scsi1: 'local-lvm:vm-100-disk-1,size=1536M',
    virtio2: 'local:iso/old-disk.raw,size=4G',
    boot: 'order=scsi0;net0',
  },
};
/** db1 with a mount point, and the PVE config that pct gets, its template's volume id included. */
const CT: GuestSpec = {
  ...DB1,
  volumes: [
    ...DB1.volumes,
    { key: 'mp0', volid: 'local:200/subvol-200-disk-1', path: '/var/lib/vz/images/200/subvol-200-disk-1', format: 'subvol', size: 2 * GIB },
  ],
  config: {
    hostname: 'db1',
    memory: '512',
    net0: 'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:3A:5F:02,ip=192.0.2.20/24,gw=192.0.2.1,type=veth',
    rootfs: 'local:200/subvol-200-disk-0,size=8G',
    mp0: 'local:200/subvol-200-disk-1,mp=/srv/data,backup=1,size=2G',
    ostemplate: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst',
  },
};
/** What pct gets of CT's config before its volumes, in a create and a restore alike. */
const CT_OPTIONS = [
  '--hostname',
  'db1',
  '--memory',
  '512',
  '--net0',
  'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:3A:5F:02,ip=192.0.2.20/24,gw=192.0.2.1,type=veth',
];

interface Call {
  readonly program: string;
  readonly args: string[];
  readonly stdin: string;
}

describe('the pve driver', () => {
  const originalPath = process.env['PATH'];
  let dir: string;
  let lines: string[];
  let context: CommandContext;
  let driver: PveDriver;
  /** The clock of the driver's CPU meter, in ms. */
  let now: number;

  const canned = (answers: Record<string, { stdout?: string; stderr?: string; code?: number; writes?: Record<string, string> }>) =>
    writeFile(join(dir, 'canned.json'), JSON.stringify(answers));
  const calls = async (): Promise<Call[]> =>
    (await readFile(join(dir, 'calls.jsonl'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Call);
  const argv = async () => (await calls()).map((call) => [call.program, ...call.args]);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-pve-'));
    const bin = join(dir, 'bin');
    await mkdir(bin);
    const script = [
      `#!${process.execPath}`,
      "const fs = require('node:fs');",
      "const name = require('node:path').basename(process.argv[1]);",
      'const args = process.argv.slice(2);',
      "const stdin = fs.readFileSync(0, 'utf8');",
      `fs.appendFileSync(${JSON.stringify(join(dir, 'calls.jsonl'))}, JSON.stringify({ program: name, args, stdin }) + '\\n');`,
      `const answers = fs.existsSync(${JSON.stringify(join(dir, 'canned.json'))}) ? JSON.parse(fs.readFileSync(${JSON.stringify(join(dir, 'canned.json'))}, 'utf8')) : {};`,
      "const answer = answers[name + ' ' + args[0]] ?? {};",
      // What the real tool would leave on disk (vzdump's archive).
      'for (const [path, text] of Object.entries(answer.writes ?? {})) fs.writeFileSync(path, text);',
      "process.stdout.write(answer.stdout ?? '');",
      "process.stderr.write(answer.stderr ?? '');",
      'process.exitCode = answer.code ?? 0;',
    ].join('\n');
    for (const program of ['qm', 'pct', 'vzdump']) {
      await writeFile(join(bin, program), script);
      await chmod(join(bin, program), 0o755);
    }
    process.env['PATH'] = `${bin}:${originalPath ?? ''}`;
    now = 0;
    driver = new PveDriver(new ProcessFigures({ procRoot: join(dir, 'proc'), sysRoot: join(dir, 'sys'), cpus: 4, now: () => now }));
    lines = [];
    context = { signal: new AbortController().signal, log: (line) => lines.push(line) };
  });
  afterEach(async () => {
    process.env['PATH'] = originalPath;
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a VM from its PVE config, new disks as <storage>:<GiB> with their format and options, existing ones as they are', async () => {
    await driver.create({ guest: VM, allocate: ['scsi0', 'scsi1'] }, context);
    expect(await argv()).toEqual([
      [
        'qm',
        'create',
        '100',
        '--name',
        'web1',
        '--memory',
        '2048',
        '--net0',
        'virtio=BC:24:11:3A:5F:01,bridge=vmbr0',
        '--scsi0',
        'local:32,format=qcow2,iothread=1',
        '--scsi1',
        'local-lvm:1.5,format=raw',
        '--virtio2',
        'local:iso/old-disk.raw,size=4G',
        '--boot',
        'order=scsi0;net0',
      ],
    ]);
  });

  it('creates a container from the template volume id in its config, mount points keeping their options', async () => {
    await driver.create(
      { guest: CT, allocate: ['rootfs', 'mp0'], ostemplate: '/var/lib/vz/template/cache/debian-12-standard_12.7-1_amd64.tar.zst' },
      context,
    );
    expect(await argv()).toEqual([
      [
        'pct',
        'create',
        '200',
        'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst',
        ...CT_OPTIONS,
        '--rootfs',
        'local:8',
        '--mp0',
        'local:2,mp=/srv/data,backup=1',
      ],
    ]);
  });

  it("writes root's password hash and keys into the container's root that pct mount names, then unmounts it", async () => {
    const rootfs = join(dir, 'rootfs');
    await mkdir(join(rootfs, 'etc'), { recursive: true });
    await mkdir(join(rootfs, 'root'));
    await writeFile(join(rootfs, 'etc/shadow'), 'root:*:19000:0:99999:7:::\n');
    await canned({ 'pct mount': { stdout: `mounted CT 200 in '${rootfs}'\n` } });
    const hash = '$6$abcdefgh$ltjgWl6579NluT/Vi1nwEvcil.G5Nbc4NiXZaNGStk8PSwGfQv72N2CKPPrVACtLtip/cZ/1GM/O6IND4WQhG.';
    await driver.create(
      { guest: CT, allocate: ['rootfs'], ignoreUnpackErrors: true, rootPasswordHash: hash, sshPublicKeys: 'ssh-ed25519 AAAA admin' },
      context,
    );
    expect((await argv()).map((args) => args.slice(0, 3))).toEqual([
      ['pct', 'create', '200'],
      ['pct', 'mount', '200'],
      ['pct', 'unmount', '200'],
    ]);
    expect((await argv())[0]?.slice(-2)).toEqual(['--ignore-unpack-errors', '1']);
    expect(await readFile(join(rootfs, 'etc/shadow'), 'utf8')).toBe(`root:${hash}:19000:0:99999:7:::\n`);
    expect(await readFile(join(rootfs, 'root/.ssh/authorized_keys'), 'utf8')).toBe('ssh-ed25519 AAAA admin\n');
  });

  it('refuses a container create without the template as a volume id, running nothing', async () => {
    const { ostemplate: _ostemplate, ...config } = CT.config;
    await expect(driver.create({ guest: { ...CT, config }, allocate: ['rootfs'] }, context)).rejects.toMatchObject({
      code: 'invalid-params',
      message: 'pct create needs the template of CT 200 as a PVE volume id in config key ostemplate',
    });
    expect(await calls()).toEqual([]);
  });

  it('runs each power operation as qm or pct does it', async () => {
    await driver.start(VM, context);
    await driver.stop('lxc', 200, context);
    await driver.shutdown({ type: 'qemu', vmid: 100, timeout: 60, forceStop: false }, context);
    await driver.shutdown({ type: 'lxc', vmid: 200, timeout: 30, forceStop: true }, context);
    await driver.reboot({ guest: CT, timeout: 45 }, context);
    await driver.reset(100, context);
    await driver.suspend('qemu', 100, context);
    await driver.resume('lxc', 200, context);
    await driver.destroy(CT, context);
    await driver.template(VM, context);
    expect(await argv()).toEqual([
      ['qm', 'start', '100'],
      ['pct', 'stop', '200'],
      ['qm', 'shutdown', '100', '--timeout', '60'],
      ['pct', 'shutdown', '200', '--timeout', '30', '--forceStop', '1'],
      ['pct', 'reboot', '200', '--timeout', '45'],
      ['qm', 'reset', '100'],
      ['qm', 'suspend', '100'],
      ['pct', 'resume', '200'],
      ['pct', 'destroy', '200', '--purge'],
      ['qm', 'template', '100'],
    ]);
  });

  it('takes, rolls back and deletes snapshots with qm and pct; PVE refuses what it refuses, in its words', async () => {
    await driver.snapshots.create({ guest: VM, snapname: 'before', vmstate: true }, context);
    await driver.snapshots.create({ guest: CT, snapname: 'before', vmstate: false }, context);
    await driver.snapshots.rollback({ guest: VM, snapname: 'before', vmstate: true, start: false }, context);
    await driver.snapshots.rollback({ guest: CT, snapname: 'before', vmstate: false, start: true }, context);
    await driver.snapshots.delete({ guest: CT, snapname: 'before' }, context);
    expect(await argv()).toEqual([
      ['qm', 'snapshot', '100', 'before', '--vmstate', '1'],
      ['pct', 'snapshot', '200', 'before'],
      ['qm', 'rollback', '100', 'before'],
      ['pct', 'rollback', '200', 'before', '--start', '1'],
      ['pct', 'delsnapshot', '200', 'before'],
    ]);
    await canned({ 'qm delsnapshot': { stderr: 'snapshot feature is not available\n', code: 255 } });
    await expect(driver.snapshots.delete({ guest: VM, snapname: 'before' }, context)).rejects.toThrow('snapshot feature is not available');
  });

  it("fails with qm's own last line, its output going to the task log", async () => {
    await canned({
      'qm start': { stdout: 'generating cloud-init ISO\n', stderr: 'trying to acquire lock...\nVM 100 already running\n', code: 255 },
    });
    await expect(driver.start(VM, context)).rejects.toThrow(/^VM 100 already running$/);
    expect([...lines].sort()).toEqual(['VM 100 already running', 'generating cloud-init ISO', 'trying to acquire lock...']);
  });

  it("clones linked from a template's overlays or fully onto the target's storage, then sets the control plane's MAC addresses", async () => {
    const template = { ...VM, template: true, volumes: VM.volumes.slice(0, 1) };
    const target = (base?: string): GuestSpec => ({
      ...VM,
      vmid: 101,
      name: 'web2',
      nics: [{ key: 'net0', mac: 'BC:24:11:3A:5F:03', bridge: 'vmbr0', model: 'virtio' }],
      volumes: [
        {
          key: 'scsi0',
          volid: 'fast:101/vm-101-disk-0.qcow2',
          path: '/mnt/fast/images/101/vm-101-disk-0.qcow2',
          format: 'qcow2',
          size: 32 * GIB,
          ...(base === undefined ? {} : { base }),
        },
      ],
      config: { name: 'web2', net0: 'virtio=BC:24:11:3A:5F:03,bridge=vmbr0', scsi0: 'fast:101/vm-101-disk-0.qcow2,size=32G' },
    });
    await driver.clone({ source: template, target: target('/var/lib/vz/images/100/vm-100-disk-0.qcow2') }, context);
    await driver.clone({ source: VM, target: target() }, context);
    await driver.clone(
      { source: CT, target: { ...CT, vmid: 201, name: 'db2', nics: [], volumes: [], config: { hostname: 'db2' } } },
      context,
    );
    expect(await argv()).toEqual([
      ['qm', 'clone', '100', '101', '--name', 'web2', '--full', '0'],
      ['qm', 'set', '101', '--net0', 'virtio=BC:24:11:3A:5F:03,bridge=vmbr0'],
      ['qm', 'clone', '100', '101', '--name', 'web2', '--full', '1', '--storage', 'fast'],
      ['qm', 'set', '101', '--net0', 'virtio=BC:24:11:3A:5F:03,bridge=vmbr0'],
      ['pct', 'clone', '200', '201', '--hostname', 'db2', '--full', '1'],
    ]);
  });

  it("feeds the monitor command to qm monitor and answers its output without the banner and prompts; an error is qm's", async () => {
    await canned({ 'qm monitor': { stdout: "Entering QEMU Monitor for VM 100 - type 'help' for help\nqm> VM status: running\r\nqm> " } });
    expect(await driver.monitor(100, 'info status', context)).toBe('VM status: running\r\n');
    expect(await calls()).toEqual([{ program: 'qm', args: ['monitor', '100'], stdin: 'info status\n' }]);
    await canned({
      'qm monitor': { stdout: "Entering QEMU Monitor for VM 100 - type 'help' for help\nqm> ERROR: VM 100 not running\nqm> " },
    });
    await expect(driver.monitor(100, 'info status', context)).rejects.toThrow(/^VM 100 not running$/);
  });

  it('lists VMs and containers from qm list --full and pct list, with the figures of each VM process from /proc', async () => {
    await canned({
      'qm list': {
        stdout: [
          '      VMID NAME                 STATUS     MEM(MB)    BOOTDISK(GB) PID       ',
          '       100 web1                 running    2048              32.00 4242      ',
          '       101 VM 101               paused     512                0.00 4343      ',
          '       102 web3                 stopped    1024               8.00 0         ',
          '',
        ].join('\n'),
      },
      'pct list': {
        stdout:
          'VMID       Status     Lock         Name                \n200        running                 db1                 \n201        stopped    backup       db2                 \n',
      },
    });
    const proc = join(dir, 'proc');
    const stat = (pid: number, ticks: number, started: number) =>
      `${pid} (kvm (web)) S 1 ${pid} ${pid} 0 -1 4 0 0 0 0 ${ticks} 0 0 0 20 0 5 0 ${started} 0 0\n`;
    await mkdir(join(proc, '4242'), { recursive: true });
    await writeFile(join(proc, 'uptime'), '5000.25 9000.00\n');
    await writeFile(join(proc, '4242/stat'), stat(4242, 1000, 200_000));
    await writeFile(join(proc, '4242/status'), 'Name:\tkvm (web)\nVmRSS:\t  102400 kB\n');
    // PVE names a VM's taps as Corral does; its QEMU's block I/O.
    await mkdir(join(dir, 'sys/class/net/tap100i0/statistics'), { recursive: true });
    await writeFile(join(dir, 'sys/class/net/tap100i0/statistics/tx_bytes'), '700\n');
    await writeFile(join(dir, 'sys/class/net/tap100i0/statistics/rx_bytes'), '300\n');
    await writeFile(join(proc, '4242/io'), 'read_bytes: 512\nwrite_bytes: 1024\n');

    expect(await driver.list(context.signal)).toEqual([
      {
        vmid: 100,
        type: 'qemu',
        status: 'running',
        pid: 4242,
        uptime: 3000,
        cpu: 0,
        mem: 102400 * 1024,
        netin: 700,
        netout: 300,
        diskread: 512,
        diskwrite: 1024,
      },
      { vmid: 101, type: 'qemu', status: 'paused', pid: 4343, uptime: 0, cpu: 0, mem: 0 },
      { vmid: 102, type: 'qemu', status: 'stopped', uptime: 0, cpu: 0, mem: 0 },
      { vmid: 200, type: 'lxc', status: 'running', uptime: 0, cpu: 0, mem: 0 },
      { vmid: 201, type: 'lxc', status: 'stopped', uptime: 0, cpu: 0, mem: 0 },
    ]);
    // A quarter of the host's 4 CPUs over ten seconds: 10 s of CPU time, 1000 ticks.
    now = 10_000;
    await writeFile(join(proc, '4242/stat'), stat(4242, 2000, 200_000));
    expect((await driver.list(context.signal))[0]?.cpu).toBe(0.25);
    expect((await argv()).slice(0, 2).sort()).toEqual([
      ['pct', 'list'],
      ['qm', 'list', '--full'],
    ]);
  });

  describe('backups', () => {
    const ARCHIVE = 'dump/vzdump-lxc-200-2025_01_31-02_00_00.tar.zst';
    /** A storage in the test's folder: PVE's tools see the host's real paths. */
    const storage = () => ({ path: join(dir, 'store'), mountpoint: false });
    const backup = (guest: GuestSpec) => ({
      guest,
      config: 'hostname: db1\n',
      mode: 'snapshot' as const,
      compress: 'zstd' as const,
      storage: storage(),
      notes: 'before the upgrade',
    });

    it('backs a container up with vzdump into the dump folder, reporting the archive it wrote and the mode it used, its notes beside it', async () => {
      const store = join(dir, 'store');
      await mkdir(join(store, 'dump'), { recursive: true });
      await writeFile(join(store, 'dump/vzdump-lxc-200-2025_01_30-02_00_00.tar.zst'), 'older');
      await canned({
        'vzdump 200': {
          stderr: [
            'INFO: mode failure - some volumes do not support snapshots',
            "INFO: trying 'suspend' mode instead",
            'INFO: backup mode: suspend',
            '',
          ].join('\n'),
          writes: { [join(store, ARCHIVE)]: 'archive', [join(store, 'dump/vzdump-lxc-200-2025_01_31-02_00_00.log')]: 'INFO: ...' },
        },
      });
      await expect(driver.backups.backup(backup(CT), context)).resolves.toEqual({ file: ARCHIVE, size: 7, mode: 'suspend' });
      expect(await argv()).toEqual([
        ['vzdump', '200', '--dumpdir', join(store, 'dump'), '--mode', 'snapshot', '--compress', 'zstd', '--remove', '0'],
      ]);
      expect(lines).toContain("INFO: trying 'suspend' mode instead");
      expect(await readFile(join(store, `${ARCHIVE}.notes`), 'utf8')).toBe('before the upgrade');
    });

    it("refuses VMs, whose vzdump archives are VMA, and fails with vzdump's own error rather than its last line", async () => {
      await expect(driver.backups.backup(backup(VM), context)).rejects.toMatchObject({
        code: 'unavailable',
        message: 'backups of VMs on the pve driver are not supported yet: PVE writes VMA archives',
      });
      expect(await calls()).toEqual([]);
      await canned({
        'vzdump 200': {
          stderr:
            'INFO: Starting Backup of VM 200 (lxc)\nERROR: Backup of VM 200 failed - CT is locked (snapshot)\nINFO: Backup job finished with errors\njob errors\n',
          code: 255,
        },
      });
      await expect(driver.backups.backup(backup(CT), context)).rejects.toThrow(/^Backup of VM 200 failed - CT is locked \(snapshot\)$/);
      await canned({});
      await expect(driver.backups.backup(backup(CT), context)).rejects.toThrow(
        `vzdump succeeded, but ${join(dir, 'store')}/dump has 0 new archives of CT 200 where one was expected`,
      );
      expect(await readdir(join(dir, 'store/dump'))).toEqual([]);
    });

    it("reads an archive's config, and restores a container with pct restore, its root allocated as in a create", async () => {
      const staging = join(dir, 'staging');
      await mkdir(join(staging, 'etc/vzdump'), { recursive: true });
      await writeFile(join(staging, 'etc/vzdump/pct.conf'), 'hostname: db1\n');
      await mkdir(join(dir, 'store/dump'), { recursive: true });
      await runChecked('tar', ['--zstd', '-cf', join(dir, 'store', ARCHIVE), '-C', staging, './etc/vzdump/pct.conf'], {
        signal: context.signal,
      });
      await expect(driver.backups.config({ storage: storage(), file: ARCHIVE }, context)).resolves.toEqual({
        type: 'lxc',
        vmid: 200,
        config: 'hostname: db1\n',
      });

      await driver.backups.restore({ guest: CT, storage: storage(), file: ARCHIVE, restore: ['rootfs'] }, context);
      expect(await argv()).toEqual([
        [
          'pct',
          'restore',
          '200',
          join(dir, 'store', ARCHIVE),
          ...CT_OPTIONS,
          '--rootfs',
          'local:8',
          '--mp0',
          'local:200/subvol-200-disk-1,mp=/srv/data,backup=1,size=2G',
        ],
      ]);
      await expect(
        driver.backups.restore({ guest: CT, storage: storage(), file: ARCHIVE, restore: ['rootfs', 'mp0'] }, context),
      ).rejects.toThrow("CT 200: a container's backup holds only its root file system (rootfs), not mp0");
      await expect(
        driver.backups.restore(
          { guest: VM, storage: storage(), file: 'dump/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst', restore: ['scsi0'] },
          context,
        ),
      ).rejects.toMatchObject({ code: 'unavailable' });
      expect(await calls()).toHaveLength(1);
    });
  });
});
