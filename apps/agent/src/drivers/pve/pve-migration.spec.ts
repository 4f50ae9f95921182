import type { ParamsOf } from '@corral/protocol';
import { DB1, WEB1 } from '../../../test-support/guest-specs.js';
import type { CommandContext } from '../command-context.js';
import { migrateArguments, PveMigration } from './pve-migration.js';

const context: CommandContext = { signal: new AbortController().signal, log: () => undefined };

/** web1 with a second disk on another storage, going to pve2. */
const guest = {
  ...WEB1,
  volumes: [
    ...WEB1.volumes,
    {
      key: 'scsi1',
      volid: 'fast:100/vm-100-disk-1.raw',
      path: '/srv/fast/images/100/vm-100-disk-1.raw',
      format: 'raw' as const,
      size: 1024,
    },
  ],
};
const send = (online: boolean, volids: Record<string, string>, copy = Object.keys(volids)): ParamsOf<'guest.migrate.send'> => ({
  guest,
  copy,
  online,
  target: { node: 'pve2', address: '192.0.2.12', nbdPort: 0, volids },
});

describe('qm migrate arguments', () => {
  it('migrates online with the local disks, naming no storages when each stays on its own', () => {
    expect(migrateArguments(send(true, { scsi0: 'local:100/vm-100-disk-0.qcow2', scsi1: 'fast:100/vm-100-disk-1.raw' }))).toEqual([
      'migrate',
      '100',
      'pve2',
      '--online',
      '1',
      '--with-local-disks',
      '1',
    ]);
  });

  it('migrates offline, and online without local disks, with no disk option', () => {
    expect(migrateArguments(send(false, { scsi0: 'local:100/vm-100-disk-0.qcow2' }))).toEqual(['migrate', '100', 'pve2']);
    expect(migrateArguments(send(true, {}))).toEqual(['migrate', '100', 'pve2', '--online', '1']);
  });

  it('maps every storage once a volume goes to another one', () => {
    expect(migrateArguments(send(true, { scsi0: 'big:100/vm-100-disk-0.qcow2', scsi1: 'fast:100/vm-100-disk-1.raw' }))).toEqual([
      'migrate',
      '100',
      'pve2',
      '--online',
      '1',
      '--with-local-disks',
      '1',
      '--targetstorage',
      'local:big,fast:fast',
    ]);
  });

  it('refuses what qm migrate cannot express, and a volume without a target', () => {
    const twoWays = {
      ...guest,
      volumes: [
        ...guest.volumes,
        {
          key: 'scsi2',
          volid: 'local:100/vm-100-disk-2.qcow2',
          path: '/var/lib/vz/images/100/vm-100-disk-2.qcow2',
          format: 'qcow2' as const,
          size: 1024,
        },
      ],
    };
    expect(() =>
      migrateArguments({ ...send(true, { scsi0: 'big:100/vm-100-disk-0.qcow2', scsi2: 'local:100/vm-100-disk-2.qcow2' }), guest: twoWays }),
    ).toThrow("VM 100: the volumes on storage 'local' go to both 'big' and 'local', which qm migrate cannot do");
    expect(() => migrateArguments(send(true, { scsi0: 'local:100/vm-100-disk-0.qcow2' }, ['scsi0', 'scsi1']))).toThrow(
      'VM 100: volume scsi1 has no volume id on both nodes',
    );
  });
});

describe('the pve driver migration', () => {
  it('runs qm migrate on the source only: the target receives on no port and has nothing to finish or undo', async () => {
    const runs: (readonly string[])[] = [];
    const migration = new PveMigration(async (program, args) => runs.push([program, ...args]));
    await expect(migration.receive()).resolves.toEqual({ nbdPort: 0 });
    await expect(migration.send(send(true, { scsi0: 'local:100/vm-100-disk-0.qcow2' }, ['scsi0']), context)).resolves.toEqual({
      state: 'running',
    });
    await migration.finish();
    await migration.abort();
    expect(runs).toEqual([['qm', 'migrate', '100', 'pve2', '--online', '1', '--with-local-disks', '1']]);
  });

  it('runs pct migrate for a container, offline, mapping its storages with --target-storage', async () => {
    const runs: (readonly string[])[] = [];
    const migration = new PveMigration(async (program, args) => runs.push([program, ...args]));
    const target = { node: 'pve2', address: '192.0.2.12', nbdPort: 0, volids: { rootfs: 'fast:200/subvol-200-disk-0' } };
    await expect(migration.send({ guest: DB1, copy: ['rootfs'], online: false, target }, context)).resolves.toEqual({ state: 'stopped' });
    expect(runs).toEqual([['pct', 'migrate', '200', 'pve2', '--target-storage', 'local:fast']]);
  });
});
