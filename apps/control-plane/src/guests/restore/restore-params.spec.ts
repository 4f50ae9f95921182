import { ApiError } from '../../errors/api-error.js';
import { LXC, QEMU } from '../guest-kinds.js';
import { createCommand } from '../lifecycle/create-command.js';
import { archiveOf, containerArchiveOf, restoreRequestOf } from './restore-params.js';

const BACKUP = 'local:backup/vzdump-lxc-200-2025_01_31-02_00_00.tar.zst';

function problem(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error.details.problems?.map((each) => `${each.param}: ${each.message}`).join('; ');
    throw error;
  }
  return undefined;
}

describe('a create that restores', () => {
  it("takes a container's backup as archive, or as PVE's ostemplate with restore=1", () => {
    expect(containerArchiveOf({ archive: BACKUP })).toStrictEqual({ volid: BACKUP, param: 'archive' });
    expect(containerArchiveOf({ ostemplate: BACKUP, restore: true })).toStrictEqual({ volid: BACKUP, param: 'ostemplate' });
    expect(containerArchiveOf({ ostemplate: 'local:vztmpl/debian.tar.zst' })).toBeUndefined();
  });

  it('refuses mixed or missing sources, naming the parameter', () => {
    expect(problem(() => containerArchiveOf({ ostemplate: BACKUP }))).toBe('ostemplate: is a backup: give restore=1 to restore it');
    expect(problem(() => containerArchiveOf({ ostemplate: 'local:vztmpl/debian.tar.zst', restore: true }))).toMatch(
      /^ostemplate: with restore=1/,
    );
    expect(problem(() => containerArchiveOf({ archive: BACKUP, ostemplate: BACKUP }))).toMatch(/^archive: give either/);
    expect(problem(() => containerArchiveOf({}))).toMatch(/^ostemplate: is required/);
  });

  it("refuses config keys beside an archive: the config is the archive's", () => {
    const archive = { volid: 'local:backup/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst', param: 'archive' };
    expect(restoreRequestOf(createCommand(QEMU, { node: 'n1', vmid: 100, force: true, storage: 'fast' }), archive)).toStrictEqual({
      guest: { kind: QEMU, node: 'n1', vmid: 100 },
      archive,
      force: true,
      unique: false,
      storage: 'fast',
    });
    expect(problem(() => restoreRequestOf(createCommand(QEMU, { node: 'n1', vmid: 100, memory: '512' }), archive))).toBe(
      "memory: cannot be given with a restore: the config is the archive's",
    );
    expect(problem(() => restoreRequestOf(createCommand(LXC, { node: 'n1', vmid: 100, force: true }), undefined))).toBe(
      'force: applies to restores only (with archive)',
    );
    // Ansible sends force=0 on every container create.
    expect(restoreRequestOf(createCommand(LXC, { node: 'n1', vmid: 100, force: false }), undefined)).toBeUndefined();
    expect(problem(() => restoreRequestOf(createCommand(QEMU, { node: 'n1', vmid: 100, start: true }), archive))).toMatch(
      /^start: is not supported with a restore yet/,
    );
  });

  it("finds a VM's backup in archive, a container's as containerArchiveOf does", () => {
    const vmBackup = 'local:backup/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst';
    expect(archiveOf(createCommand(QEMU, { node: 'n1', vmid: 100, archive: vmBackup }))).toStrictEqual({
      volid: vmBackup,
      param: 'archive',
    });
    expect(archiveOf(createCommand(QEMU, { node: 'n1', vmid: 100 }))).toBeUndefined();
    expect(archiveOf(createCommand(LXC, { node: 'n1', vmid: 200, ostemplate: BACKUP, restore: true }))).toStrictEqual({
      volid: BACKUP,
      param: 'ostemplate',
    });
    expect(problem(() => archiveOf(createCommand(LXC, { node: 'n1', vmid: 200 })))).toMatch(/^ostemplate: is required/);
  });
});
