import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestVolume } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import { removeHostRoot } from '../../../../test-support/host-roots.js';
import { openHost, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import { writeCloudinitDrive } from './qemu-cloudinit.js';

/*
 * The cloud-init drive with real genisoimage and qemu-img in a temporary host root: the qcow2
 * volume is converted back to raw and read with isoinfo (volume id, Rock Ridge files).
 */

describe('a native cloud-init drive (real genisoimage, qemu-img and isoinfo)', () => {
  let dir: string;
  let host: Host;
  const log: string[] = [];
  const signal = new AbortController().signal;
  const context: CommandContext = { signal, log: (line) => log.push(line) };
  const volume: GuestVolume = {
    key: 'ide2',
    volid: 'local:100/vm-100-cloudinit.qcow2',
    path: '/var/lib/vz/images/100/vm-100-cloudinit.qcow2',
    format: 'qcow2',
    size: 0,
    cdrom: true,
  };

  /** The ISO inside the volume, as raw bytes in a file of the test's own. */
  const iso = async () => {
    const raw = join(dir, 'read-back.iso');
    await runChecked('qemu-img', ['convert', '-f', 'qcow2', '-O', 'raw', join(dir, volume.path), raw], { signal });
    return raw;
  };
  const isoinfo = async (...args: string[]) => (await runChecked('isoinfo', ['-i', await iso(), ...args], { signal })).stdout;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-cloudinit-'));
    host = await openHost(dir);
    await mkdir(join(dir, 'var/lib/vz/snippets'), { recursive: true });
    await writeFile(join(dir, 'var/lib/vz/snippets/user.yaml'), '#cloud-config\nhostname: from-snippet\n');
  });

  afterAll(() => removeHostRoot(dir));

  it('writes a NoCloud ISO labelled cidata with the files, a snippet replacing its part', async () => {
    const files = [
      { path: '/user-data', snippet: '/var/lib/vz/snippets/user.yaml' },
      { path: '/network-config', content: 'version: 1\nconfig: []\n' },
      { path: '/meta-data', content: 'instance-id: abc\n' },
      { path: '/vendor-data', content: '' },
    ];
    await writeCloudinitDrive(host, { vmid: 100, volume, label: 'cidata', files }, context);
    expect(await isoinfo('-d')).toMatch(/^Volume id: cidata$/m);
    expect(await isoinfo('-R', '-x', '/user-data')).toBe('#cloud-config\nhostname: from-snippet\n');
    expect(await isoinfo('-R', '-x', '/meta-data')).toBe('instance-id: abc\n');
    expect(await isoinfo('-R', '-x', '/network-config')).toBe('version: 1\nconfig: []\n');
    expect(log).toContain('generating cloud-init ISO (cidata) for ide2');
  });

  it('replaces the drive with the OpenStack layout labelled config-2, leaving no staged file', async () => {
    const files = [
      { path: '/openstack/latest/user_data', content: '#cloud-config\n' },
      { path: '/openstack/latest/meta_data.json', content: '{"uuid": "x"}' },
    ];
    await writeCloudinitDrive(host, { vmid: 100, volume, label: 'config-2', files }, context);
    expect(await isoinfo('-d')).toMatch(/^Volume id: config-2$/m);
    expect(await isoinfo('-R', '-x', '/openstack/latest/meta_data.json')).toBe('{"uuid": "x"}');
    expect(await readdir(join(dir, 'var/lib/vz/images/100'))).toStrictEqual(['vm-100-cloudinit.qcow2']);
  });

  it('fails naming a snippet that does not exist, and leaves the drive as it was', async () => {
    const files = [{ path: '/user-data', snippet: '/var/lib/vz/snippets/missing.yaml' }];
    await expect(writeCloudinitDrive(host, { vmid: 100, volume, label: 'cidata', files }, context)).rejects.toThrow(
      'cicustom: snippet /var/lib/vz/snippets/missing.yaml does not exist',
    );
    expect(await isoinfo('-d')).toMatch(/^Volume id: config-2$/m);
  });
});
