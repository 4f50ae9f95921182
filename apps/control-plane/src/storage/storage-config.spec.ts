import { ApiError } from '../errors/api-error.js';
import { configEntry, contentOf, newStorage, pruneBackupsOf, storagePathOf, storageType, withSettings } from './storage-config.js';

/** The 400's parameter and message, for a call that must refuse. */
function refusal(call: () => unknown): { param: string; message: string } | undefined {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return error.details.problems?.[0];
    throw error;
  }
  return undefined;
}

describe('storage definitions', () => {
  it('takes dir, and refuses the types of PVE that Corral does not implement, saying so', () => {
    expect(storageType('dir')).toBe('dir');
    expect(refusal(() => storageType('lvmthin'))).toEqual({
      param: 'type',
      message: "storage type 'lvmthin' is not supported by Corral yet: only 'dir' is",
    });
    expect(refusal(() => storageType('floppy'))).toEqual({ param: 'type', message: "unknown storage type 'floppy'" });
  });

  it.each([
    ['/srv/isos', '/srv/isos'],
    ['/mnt/backup/', '/mnt/backup'],
    ['/var/lib/vz', '/var/lib/vz'],
    ['/data', '/data'],
    ['/usrdata', '/usrdata'],
  ])('takes the path %s as %s', (given, path) => {
    expect(storagePathOf(given)).toBe(path);
  });

  it.each([
    ['/', "a storage cannot be the root folder '/'"],
    ['srv/isos', "'srv/isos' must be an absolute path without . or .. segments"],
    ['/srv/../etc', "'/srv/../etc' must be an absolute path without . or .. segments"],
    ['/srv/./isos', 'must be an absolute path without . or .. segments'],
    ['/srv/is os', 'must be an absolute path without . or .. segments'],
    ['/etc', "'/etc' is in the host's system folder /etc"],
    ['/etc/pve', "'/etc/pve' is in the host's system folder /etc"],
    ['/proc/1', 'system folder /proc'],
    ['/usr/local/isos', 'system folder /usr'],
    ['/var/lib/corral/lxc', 'system folder /var/lib/corral'],
    ['/dev/shm', 'system folder /dev'],
  ])('refuses the path %s', (path, message) => {
    expect(refusal(() => storagePathOf(path))).toEqual({ param: 'path', message: expect.stringContaining(message) });
  });

  it("reads PVE's content lists: images and rootdir by default, none for nothing, an unknown kind refused", () => {
    expect(contentOf(undefined)).toEqual(['images', 'rootdir']);
    expect(contentOf('iso, vztmpl,backup,iso')).toEqual(['vztmpl', 'iso', 'backup']);
    expect(contentOf('none')).toEqual([]);
    expect(refusal(() => contentOf('iso,dvd'))).toEqual({
      param: 'content',
      message: expect.stringContaining("unknown content kind 'dvd'"),
    });
  });

  it('checks prune-backups as libs/pve-formats reads it, naming the parameter, and stores it as PVE writes it', () => {
    expect(pruneBackupsOf('keep-weekly=2, keep-last=3')).toBe('keep-last=3,keep-weekly=2');
    expect(pruneBackupsOf('keep-all=yes')).toBe('keep-all=1');
    expect(pruneBackupsOf('')).toBeNull();
    expect(refusal(() => pruneBackupsOf('keep-last=three'))).toEqual({
      param: 'prune-backups',
      message: "keep-last must be a whole number of 0 or more, not 'three'",
    });
    expect(refusal(() => pruneBackupsOf('keep-lasts=3'))).toEqual({
      param: 'prune-backups',
      message: "unknown retention option 'keep-lasts'",
    });
    expect(refusal(() => pruneBackupsOf('keep-last=1,keep-last=2'))).toEqual({
      param: 'prune-backups',
      message: 'keep-last is given twice',
    });
    expect(refusal(() => pruneBackupsOf('keep-all=1,keep-daily=7'))).toEqual({
      param: 'prune-backups',
      message: 'keep-all cannot be combined with keep-daily',
    });
    expect(refusal(() => pruneBackupsOf('keep-all=2'))).toEqual({ param: 'prune-backups', message: "keep-all must be 0 or 1, not '2'" });
  });

  it('changes settings, clears deleted ones back to their defaults, and shows the result as PVE with a digest that follows it', () => {
    const made = withSettings(newStorage('isos', '/srv/isos'), {
      content: 'iso,vztmpl',
      nodes: ['pve2', 'pve1'],
      'is-rootdir': true,
      'prune-backups': 'keep-last=2',
    });
    const entry = configEntry(made);
    expect(entry).toEqual({
      storage: 'isos',
      type: 'dir',
      path: '/srv/isos',
      content: 'iso,vztmpl',
      nodes: 'pve1,pve2',
      shared: 0,
      enabled: 1,
      'prune-backups': 'keep-last=2',
      is_mountpoint: 'yes',
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    const changed = withSettings(made, { disable: true }, ['nodes', 'prune-backups', 'content']);
    expect(configEntry(changed)).toEqual({
      ...entry,
      content: 'images,rootdir',
      nodes: undefined,
      'prune-backups': undefined,
      disable: 1,
      enabled: 0,
      digest: expect.not.stringMatching(entry.digest),
    });
    expect(configEntry(withSettings(made, {})).digest).toBe(entry.digest);
  });

  it('refuses a setting given and deleted at once, and is_mountpoint and is-rootdir that disagree', () => {
    expect(refusal(() => withSettings(newStorage('a', '/srv/a'), { shared: true }, ['shared']))).toEqual({
      param: 'delete',
      message: "'shared' is both given and deleted",
    });
    expect(refusal(() => withSettings(newStorage('a', '/srv/a'), { is_mountpoint: true, 'is-rootdir': false }))).toEqual({
      param: 'is-rootdir',
      message: expect.stringContaining("is-rootdir is Corral's name for is_mountpoint"),
    });
  });
});
