import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GuestRuntime, type GuestSpec, type ParamsOf } from '@corral/protocol';
import { buildBusyboxTemplate, waitFor } from '@corral/testing';
import { suspendedContainerLog } from '../../../../test-support/backup-logs.js';
import { fileTree } from '../../../../test-support/file-tree.js';
import { smallContainer, subvolume } from '../../../../test-support/guest-specs.js';
import { hostPath, openHost, type Host } from '../../../host/host.js';
import { runChecked, runProgram } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { NativeLxc } from './native-lxc.js';

// Real LXC 5 with privileged containers from a busybox template: needs root, lxc, busybox-static and zstd (tools/test-deps.sh).

const signal = new AbortController().signal;
const TEMPLATE = '/var/lib/vz/template/cache/busybox.tar.zst';
/** A bridge no host has, so that the card is left unplugged whatever bridges this machine has. */
const MISSING_BRIDGE = 'corralnone0';
const VMIDS = [200, 201, 202, 203, 204, 210, 211, 212, 220, 221];

const subvol = subvolume;
const spec = (vmid: number, changes: Partial<GuestSpec> = {}): GuestSpec =>
  smallContainer(vmid, {
    nics: [{ key: 'net0', mac: 'BC:24:11:00:02:00', bridge: MISSING_BRIDGE, name: 'eth0', ip: '192.0.2.20/24', gw: '192.0.2.1' }],
    ...changes,
  });

describe('NativeLxc with this machine’s LXC', () => {
  let dir: string;
  let host: Host;
  let lxc: NativeLxc;
  let lxcpath: string;
  let logs: string[] = [];
  const context: CommandContext = { signal, log: (line) => logs.push(line) };
  const ct200 = spec(200);
  const ct201 = spec(201);
  const runtime = async (vmid: number) => (await lxc.list(signal)).find((guest) => guest.vmid === vmid);
  const inRoot = (vmid: number, path: string) => hostPath(host, `${subvol(vmid).path}${path}`);
  const create = (guest: GuestSpec, ostemplate = TEMPLATE) => lxc.create({ guest, allocate: ['rootfs'], ostemplate }, context);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-lxc-'));
    host = await openHost(dir);
    lxc = new NativeLxc(host);
    lxcpath = hostPath(host, '/var/lib/corral/lxc');
    await buildBusyboxTemplate(hostPath(host, TEMPLATE));
  });

  beforeEach(() => {
    logs = [];
  });

  afterAll(async () => {
    const cleanup = AbortSignal.timeout(60_000);
    for (const vmid of VMIDS) await runProgram('lxc-stop', ['-n', String(vmid), '-P', lxcpath, '-k'], { signal: cleanup });
    await rm(dir, { recursive: true, force: true });
  });

  it('creates CT 200 from the template, leaving the card on a missing bridge unplugged', async () => {
    await create(ct200);
    expect(logs).toContain(`net0: bridge '${MISSING_BRIDGE}' does not exist on this host; the card is not connected`);
    const config = await readFile(join(lxcpath, '200/config'), 'utf8');
    expect(config).toContain('lxc.net.0.type = empty\n');
    expect(config).toContain(`lxc.rootfs.path = dir:${inRoot(200, '')}\n`);
    expect(await readlink(inRoot(200, '/bin/sh'))).toBe('busybox');
    expect(await runtime(200)).toEqual({ vmid: 200, type: 'lxc', status: 'stopped', uptime: 0, cpu: 0, mem: 0 });
  }, 60_000);

  it('refuses a create over a root that is not empty or a CT that exists, and leaves nothing of it behind', async () => {
    await expect(create(ct200)).rejects.toThrow('CT 200 already exists on this host');
    const intruder = spec(202, { volumes: [subvol(202, 'mp0', 1), { ...subvol(200), volid: 'local:202/subvol-202-disk-0' }] });
    await expect(lxc.create({ guest: intruder, allocate: ['mp0', 'rootfs'], ostemplate: TEMPLATE }, context)).rejects.toThrow(
      `volume local:202/subvol-202-disk-0 already exists at ${subvol(200).path} and is not empty`,
    );
    expect(existsSync(hostPath(host, '/var/lib/vz/images/202'))).toBe(false);
    expect(existsSync(join(lxcpath, '202'))).toBe(false);
    expect(existsSync(inRoot(200, '/bin/busybox'))).toBe(true);
  }, 60_000);

  it('starts it: list shows it running with its pid, and LXC applied its name and memory limit', async () => {
    await lxc.start(ct200, context);
    const first = await runtime(200);
    expect(first).toMatchObject({ status: 'running', cpu: 0 });
    expect(first?.pid).toBeGreaterThan(1);
    expect(first?.mem).toBeGreaterThan(0);
    // Its traffic counters, from its network namespace and its cgroup.
    expect(first).toMatchObject({
      netin: expect.any(Number),
      netout: expect.any(Number),
      diskread: expect.any(Number),
      diskwrite: expect.any(Number),
    });
    expect(GuestRuntime.parse(await runtime(200))).toMatchObject({ status: 'running', pid: first?.pid });

    const hostname = await runChecked('lxc-attach', ['-n', '200', '-P', lxcpath, '--', 'hostname'], { signal });
    expect(hostname.stdout.trim()).toBe('ct200');
    const limitKey = existsSync('/sys/fs/cgroup/memory') ? 'memory.limit_in_bytes' : 'memory.max';
    expect((await runChecked('lxc-cgroup', ['-n', '200', '-P', lxcpath, limitKey], { signal })).stdout.trim()).toBe(
      String(128 * 1024 * 1024),
    );
  }, 60_000);

  it('reads its interfaces in its network namespace: its loopback with the address it was given there, and no host interface', async () => {
    // busybox's init brings up nothing: the container's own `ip` does, in its namespace.
    await runChecked('lxc-attach', ['-n', '200', '-P', lxcpath, '--', 'ip', 'link', 'set', 'lo', 'up'], { signal });
    const interfaces = await lxc.interfaces(200, context);
    expect(interfaces.find((entry) => entry.name === 'lo')).toEqual({
      name: 'lo',
      hwaddr: '00:00:00:00:00:00',
      addresses: expect.arrayContaining([{ family: 'inet', address: '127.0.0.1', prefix: 8 }]),
    });
    const hostNames = (JSON.parse((await runChecked('ip', ['-j', 'link', 'show'], { signal })).stdout) as { ifname: string }[])
      .map((link) => link.ifname)
      .filter((name) => name !== 'lo');
    expect(interfaces.filter((entry) => hostNames.includes(entry.name))).toEqual([]);
  }, 60_000);

  it('refuses to start it again while it runs', async () => {
    await expect(lxc.start(ct200, context)).rejects.toThrow('CT 200 is already running');
  }, 60_000);

  it('suspends and resumes it', async () => {
    const { pid } = (await runtime(200)) ?? {};
    await lxc.suspend(200, context);
    expect(await runtime(200)).toMatchObject({ status: 'paused', pid });
    await lxc.resume(200, context);
    expect(await runtime(200)).toMatchObject({ status: 'running', pid });
  }, 60_000);

  it('shuts it down cleanly: busybox init halts on the signal LXC sends', async () => {
    await lxc.shutdown(200, 60, false, context);
    expect((await runtime(200))?.status).toBe('stopped');
    expect(logs).toEqual([]);
  }, 90_000);

  it('reboots it into a new init', async () => {
    await lxc.start(ct200, context);
    const before = (await runtime(200))?.pid;
    await lxc.reboot(ct200, 60, context);
    const after = await runtime(200);
    expect(after?.status).toBe('running');
    expect(after?.pid).not.toBe(before);
  }, 90_000);

  it('stops it at once; a stopped CT stays stopped and cannot be suspended', async () => {
    await lxc.stop(200, context);
    expect((await runtime(200))?.status).toBe('stopped');
    await lxc.stop(200, context);
    await expect(lxc.suspend(200, context)).rejects.toThrow('CT 200 is not running');
    await expect(lxc.interfaces(200, context)).rejects.toThrow('CT 200 is not running');
  }, 60_000);

  it('says that a CT whose init ignores the halt signal still runs, and kills it when forced', async () => {
    const stubborn = spec(203);
    await create(stubborn);
    // A namespace's init without a handler never sees SIGPWR.
    await rm(inRoot(203, '/sbin/init'));
    await writeFile(inRoot(203, '/sbin/init'), '#!/bin/sh\nexec sleep 2147483647\n', { mode: 0o755 });
    await lxc.start(stubborn, context);

    await expect(lxc.shutdown(203, 1, false, context)).rejects.toThrow('CT 203 is still running after 1 s (shutdown timed out)');
    expect((await runtime(203))?.status).toBe('running');
    await lxc.shutdown(203, 1, true, context);
    expect(logs).toContain('CT 203 did not shut down within 1 s: stopping it');
    expect((await runtime(203))?.status).toBe('stopped');
    await lxc.destroy(stubborn, context);
  }, 90_000);

  it('fails a start with what LXC logged, and leaves the CT stopped', async () => {
    const broken = spec(204);
    await create(broken);
    await rm(inRoot(204, '/sbin/init'));
    await expect(lxc.start(broken, context)).rejects.toThrow(/^CT 204 did not start: .*Failed to exec "\/sbin\/init"/);
    expect((await runtime(204))?.status).toBe('stopped');
    await lxc.destroy(broken, context);
  }, 60_000);

  it('clones CT 200 only while it is stopped, keeping device nodes and symbolic links, and the clone runs', async () => {
    await runChecked('mknod', [inRoot(200, '/root/null'), 'c', '1', '3'], { signal });
    await lxc.start(ct200, context);
    await expect(lxc.clone({ source: ct200, target: ct201 }, context)).rejects.toThrow('CT 200 is running: a full clone needs it stopped');
    expect(existsSync(hostPath(host, '/var/lib/vz/images/201'))).toBe(false);
    await lxc.stop(200, context);

    await lxc.clone({ source: ct200, target: ct201 }, context);
    const [original, copy] = await Promise.all([stat(inRoot(200, '/root/null')), stat(inRoot(201, '/root/null'))]);
    expect(copy.isCharacterDevice()).toBe(true);
    expect(copy.rdev).toBe(original.rdev);
    expect(await readlink(inRoot(201, '/bin/sh'))).toBe('busybox');
    expect(await readFile(join(lxcpath, '201/config'), 'utf8')).toContain('lxc.uts.name = ct201\n');

    await lxc.start(ct201, context);
    expect((await runtime(201))?.status).toBe('running');
    await lxc.stop(201, context);
    expect((await runtime(201))?.status).toBe('stopped');
  }, 90_000);

  it('turns only a stopped CT into a template, which then does not start', async () => {
    await lxc.start(ct200, context);
    await expect(lxc.template(ct200, context)).rejects.toThrow('CT 200 is running: stop it before turning it into a template');
    await lxc.stop(200, context);
    await lxc.template(ct200, context);
    await expect(lxc.start({ ...ct200, template: true }, context)).rejects.toThrow('CT 200 is a template');
  }, 60_000);

  it('destroys only stopped CTs, down to their volumes and LXC folders', async () => {
    await lxc.start(ct201, context);
    await expect(lxc.destroy(ct201, context)).rejects.toThrow('CT 201 is running: stop it before destroying it');
    await lxc.stop(201, context);
    for (const guest of [ct200, ct201]) await lxc.destroy(guest, context);

    for (const vmid of [200, 201]) {
      expect(existsSync(inRoot(vmid, ''))).toBe(false);
      expect(existsSync(join(lxcpath, String(vmid)))).toBe(false);
    }
    expect(await lxc.list(signal)).toEqual([]);
    await lxc.destroy(ct200, context);
  }, 60_000);

  it.each([
    [210, '.tar'],
    [211, '.tar.gz'],
    [212, '.tar.xz'],
  ])(
    'creates CT %i from a %s template',
    async (vmid, suffix) => {
      const archive = `/var/lib/vz/template/cache/busybox${suffix}`;
      await buildBusyboxTemplate(hostPath(host, archive));
      const guest = spec(vmid);
      await create(guest, archive);
      expect(existsSync(inRoot(vmid, '/bin/busybox'))).toBe(true);
      await lxc.destroy(guest, context);
    },
    60_000,
  );

  describe('backups', () => {
    const storage = { path: '/var/lib/vz', mountpoint: false };
    /** CT 220 with a mount point, which backups leave out. */
    const ct220 = spec(220, {
      volumes: [subvol(220), subvol(220, 'mp0', 1)],
      config: { hostname: 'ct220', rootfs: 'local:220/subvol-220-disk-0,size=1G', mp0: 'local:220/subvol-220-disk-1,mp=/srv/data,size=1G' },
    });
    const ct221 = spec(221);
    const backup = (
      mode: ParamsOf<'guest.backup'>['mode'],
      compress: ParamsOf<'guest.backup'>['compress'] = 'zstd',
    ): ParamsOf<'guest.backup'> => ({
      guest: ct220,
      config: 'arch: amd64\nhostname: ct220\nrootfs: local:220/subvol-220-disk-0,size=1G\n',
      mode,
      compress,
      storage,
    });
    const dump = async () => (await readdir(hostPath(host, '/var/lib/vz/dump')).catch(() => [])).sort();
    /** Every path of a tree with its type, mode, owner and group, and a file's sha256 or a link's target. */
    const tree = (root: string) => fileTree(root, signal);

    beforeAll(async () => {
      await create(ct220);
      // Content, modes and owners that a copy could lose: none of them the template's.
      await mkdir(inRoot(220, '/srv/app'), { recursive: true });
      await writeFile(inRoot(220, '/srv/app/data.bin'), randomBytes(200_000));
      await writeFile(inRoot(220, '/root/secret'), 'known content\n', { mode: 0o600 });
      await chown(inRoot(220, '/root/secret'), 1000, 1001);
      await chown(inRoot(220, '/srv/app'), 33, 33);
      await chmod(inRoot(220, '/srv/app'), 0o2750);
      await symlink('../root/secret', inRoot(220, '/srv/secret-link'));
      await runChecked('mknod', [inRoot(220, '/root/null'), 'c', '1', '3'], { signal });
    }, 60_000);

    // Archives are named to the second: two backups of a CT within one second would share a name.
    afterEach(() => rm(hostPath(host, '/var/lib/vz/dump'), { recursive: true, force: true }));

    it('backs a stopped CT up in PVE’s layout, leaving its mount point out, and restores it into another CT with an identical tree', async () => {
      const result = await lxc.backups.backup(backup('snapshot'), context);
      expect(result).toEqual({
        file: expect.stringMatching(/^dump\/vzdump-lxc-220-\d{4}_\d{2}_\d{2}-\d{2}_\d{2}_\d{2}\.tar\.zst$/),
        size: expect.any(Number),
        mode: 'stop',
      });
      expect(logs).toEqual([
        'INFO: backup mode: stop',
        "INFO: including mount point rootfs ('/') in backup",
        "INFO: excluding volume mount point mp0 ('/srv/data') from backup",
        `INFO: creating vzdump archive '/var/lib/vz/${result.file}'`,
      ]);
      const archive = hostPath(host, `/var/lib/vz/${result.file}`);
      const members = (await runChecked('tar', ['-tf', archive], { signal })).stdout.split('\n');
      expect(members.slice(0, 2)).toEqual(['./etc/vzdump/pct.conf', './']);
      expect(members).toContain('./bin/busybox');
      await expect(lxc.backups.config({ storage, file: result.file }, context)).resolves.toEqual({
        type: 'lxc',
        vmid: 220,
        config: backup('stop').config,
      });

      await lxc.backups.restore({ guest: ct221, storage, file: result.file, restore: ['rootfs'] }, context);
      expect(await tree(inRoot(221, ''))).toEqual(await tree(inRoot(220, '')));
      expect(existsSync(inRoot(221, '/etc/vzdump'))).toBe(false);
      await lxc.start(ct221, context);
      expect((await runtime(221))?.status).toBe('running');
      await lxc.stop(221, context);
      await expect(lxc.backups.restore({ guest: ct221, storage, file: result.file, restore: ['rootfs'] }, context)).rejects.toThrow(
        'CT 221 already exists on this host',
      );
    }, 90_000);

    it('refuses a restore of a mount point, and a failed restore leaves nothing of the CT behind', async () => {
      await lxc.destroy(ct221, context);
      const restore = (file: string, keys = ['rootfs']) => lxc.backups.restore({ guest: ct221, storage, file, restore: keys }, context);
      const broken = 'dump/vzdump-lxc-221-2025_01_31-02_00_00.tar.zst';
      await expect(restore(broken, ['rootfs', 'mp0'])).rejects.toThrow(
        "CT 221: a container's backup holds only its root file system (rootfs), not mp0",
      );
      await mkdir(hostPath(host, '/var/lib/vz/dump'), { recursive: true });
      await writeFile(hostPath(host, `/var/lib/vz/${broken}`), 'not an archive');
      await expect(restore(broken)).rejects.toThrow(/^tar could not unpack vzdump-lxc-221-2025_01_31-02_00_00\.tar\.zst/);
      expect(existsSync(hostPath(host, '/var/lib/vz/images/221'))).toBe(false);
      expect(existsSync(join(lxcpath, '221'))).toBe(false);
    }, 60_000);

    it('backs a running CT up in snapshot mode as suspend, frozen for the copy only; a CT paused already stays paused', async () => {
      await lxc.start(ct220, context);
      const { pid } = (await runtime(220)) ?? {};
      logs = [];
      await expect(lxc.backups.backup(backup('snapshot'), context)).resolves.toMatchObject({ mode: 'suspend' });
      expect(logs).toEqual(suspendedContainerLog(expect.stringMatching(/^INFO: creating vzdump archive /)));
      expect(await runtime(220)).toMatchObject({ status: 'running', pid });

      await lxc.suspend(220, context);
      await expect(lxc.backups.backup(backup('suspend', 'none'), context)).resolves.toMatchObject({
        mode: 'suspend',
        file: expect.stringMatching(/\.tar$/),
      });
      expect(await runtime(220)).toMatchObject({ status: 'paused', pid });
      await lxc.resume(220, context);
    }, 90_000);

    it('stops a running CT for a stop mode backup and starts it again', async () => {
      const before = (await runtime(220))?.pid;
      await expect(lxc.backups.backup(backup('stop', 'gzip'), context)).resolves.toMatchObject({
        mode: 'stop',
        file: expect.stringMatching(/\.tar\.gz$/),
      });
      expect(logs).toEqual(expect.arrayContaining(['INFO: stopping virtual guest', 'INFO: restarting vm']));
      const after = await runtime(220);
      expect(after?.status).toBe('running');
      expect(after?.pid).not.toBe(before);
    }, 120_000);

    it('leaves nothing in the dump folder when a backup is cancelled, and the CT running', async () => {
      await writeFile(inRoot(220, '/srv/app/big.bin'), randomBytes(96 * 1024 * 1024));
      const controller = new AbortController();
      const stopped = lxc.backups.backup(backup('suspend', 'gzip'), { signal: controller.signal, log: () => undefined });
      // Random bytes take gzip seconds: cancelled once the hidden temporary archive shows.
      await waitFor(async () => (await dump()).some((name) => name.endsWith('.tmp')), { timeoutMs: 30_000, what: 'the temporary archive' });
      controller.abort(new Error('the request was cancelled'));
      await expect(stopped).rejects.toThrow('the request was cancelled');
      expect(await dump()).toEqual([]);
      expect((await runtime(220))?.status).toBe('running');
      await rm(inRoot(220, '/srv/app/big.bin'));
      await lxc.stop(220, context);
    }, 90_000);
  });
});
