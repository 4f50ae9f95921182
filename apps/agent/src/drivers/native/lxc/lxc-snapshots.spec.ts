import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestSpec } from '@corral/protocol';
import { buildBusyboxTemplate } from '@corral/testing';
import { hostPath, openHost, type Host } from '../../../host/host.js';
import { runChecked, runProgram } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { NativeLxc } from './native-lxc.js';

// Real LXC with a privileged busybox container on a temporary host root: snapshots as copies of its root directory.

const signal = new AbortController().signal;
const TEMPLATE = '/var/lib/vz/template/cache/busybox.tar.zst';
const ROOT = '/var/lib/vz/images/230/subvol-230-disk-0';

const CT: GuestSpec = {
  type: 'lxc',
  vmid: 230,
  name: 'ct230',
  memoryMiB: 128,
  cores: 1,
  sockets: 1,
  template: false,
  nics: [],
  volumes: [{ key: 'rootfs', volid: 'local:230/subvol-230-disk-0', path: ROOT, format: 'subvol', size: 1024 ** 3 }],
  config: {},
};

describe('LXC snapshots with this machine’s LXC', () => {
  let dir: string;
  let host: Host;
  let lxc: NativeLxc;
  let logs: string[];
  const context: CommandContext = { signal, log: (line) => logs.push(line) };
  const inRoot = (path: string) => hostPath(host, `${ROOT}${path}`);
  const snapshots = () => hostPath(host, '/var/lib/vz/images/230/.snapshots');
  const status = async () => (await lxc.list(signal)).find((guest) => guest.vmid === CT.vmid)?.status ?? 'stopped';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-lxc-snap-'));
    host = await openHost(dir);
    lxc = new NativeLxc(host);
    await buildBusyboxTemplate(hostPath(host, TEMPLATE));
    await lxc.create({ guest: CT, allocate: ['rootfs'], ostemplate: TEMPLATE }, { signal, log: () => undefined });
    await writeFile(inRoot('/etc/motd'), 'before\n');
  }, 60_000);
  beforeEach(() => {
    logs = [];
  });
  afterAll(async () => {
    await runProgram('lxc-stop', ['-n', String(CT.vmid), '-P', hostPath(host, '/var/lib/corral/lxc'), '-k'], {
      signal: AbortSignal.timeout(60_000),
    });
    await rm(dir, { recursive: true, force: true });
  });

  it('copies the root of a running container, frozen for the copy, and refuses the name a second time', async () => {
    await lxc.start(CT, context);
    await lxc.snapshots.create({ guest: CT, snapname: 'clean', vmstate: false }, context);
    expect(logs).toEqual(['freezing CT 230 for the copy', "local:230/subvol-230-disk-0: created snapshot 'clean'"]);
    expect(await status()).toBe('running');
    expect(await readFile(join(snapshots(), 'clean/subvol-230-disk-0/etc/motd'), 'utf8')).toBe('before\n');
    await expect(lxc.snapshots.create({ guest: CT, snapname: 'clean', vmstate: false }, context)).rejects.toThrow(
      "snapshot name 'clean' already used (on volume local:230/subvol-230-disk-0)",
    );
  }, 60_000);

  it('refuses a rollback while the container runs', async () => {
    await expect(lxc.snapshots.rollback({ guest: CT, snapname: 'clean', vmstate: false, start: false }, context)).rejects.toThrow(
      'CT 230 is running: stop it before rolling it back',
    );
  });

  it('rolls back: a file made after the snapshot is gone, a changed one is as it was, and the container starts with start', async () => {
    await runChecked(
      'lxc-attach',
      ['-n', '230', '-P', hostPath(host, '/var/lib/corral/lxc'), '--', 'sh', '-c', 'echo after > /etc/motd; touch /made-later'],
      { signal },
    );
    expect(existsSync(inRoot('/made-later'))).toBe(true);
    await lxc.stop(CT.vmid, context);
    await lxc.snapshots.rollback({ guest: CT, snapname: 'clean', vmstate: false, start: true }, context);
    expect(existsSync(inRoot('/made-later'))).toBe(false);
    expect(await readFile(inRoot('/etc/motd'), 'utf8')).toBe('before\n');
    expect(await status()).toBe('running');
    // Nothing of the rollback's working folders is left; the snapshot stays for another rollback.
    expect((await readdir(snapshots())).sort()).toEqual(['clean']);
    await lxc.stop(CT.vmid, context);
  }, 60_000);

  it('refuses a rollback to a snapshot that does not exist, changing nothing', async () => {
    await expect(lxc.snapshots.rollback({ guest: CT, snapname: 'nothing', vmstate: false, start: false }, context)).rejects.toThrow(
      "snapshot 'nothing' does not exist on volume local:230/subvol-230-disk-0",
    );
    expect(existsSync(inRoot('/bin/busybox'))).toBe(true);
  });

  it('deletes a snapshot, and the destroy of the container removes the snapshots left', async () => {
    await lxc.snapshots.create({ guest: CT, snapname: 'other', vmstate: false }, context);
    await lxc.snapshots.delete({ guest: CT, snapname: 'clean' }, context);
    expect(await readdir(snapshots())).toEqual(['other']);
    await lxc.destroy(CT, context);
    expect(existsSync(hostPath(host, '/var/lib/vz/images/230'))).toBe(false);
  }, 60_000);
});
