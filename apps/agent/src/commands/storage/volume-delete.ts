import type { ParamsOf } from '@corral/protocol';
import { lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { removeEmptyGuestFolder } from '../../drivers/guest-volumes.js';
import { missing, requireActive } from '../../drivers/storage-location.js';
import type { Host } from '../../host/host.js';

/** What vzdump writes beside an archive: `<archive>.notes`, `<archive>.protected`, and its log `<archive without extensions>.log`. */
const BACKUP_ARCHIVE = /^(dump\/vzdump-[a-z]+-\d+-\d{4}_\d{2}_\d{2}-\d{2}_\d{2}_\d{2})\./;

/**
 * `storage.volume.delete`: removes one volume (the protocol's `VolumeFile` limits it to the
 * storage's volume folders). A backup goes with its notes and log, and not while it is protected;
 * a guest's folder `images/<vmid>/` goes with its last volume.
 */
export async function deleteVolume(host: Host, { file, ...location }: ParamsOf<'storage.volume.delete'>): Promise<null> {
  const folder = await requireActive(host, location);
  const path = join(folder, file);
  const stats = await lstat(path).catch(missing);
  if (stats === null) throw new Error(`volume ${location.path}/${file} does not exist`);
  const archive = BACKUP_ARCHIVE.exec(file);
  if (archive) {
    if ((await lstat(`${path}.protected`).catch(missing)) !== null)
      throw new Error(`backup ${file} is protected: remove its protection first`);
    await rm(path);
    await Promise.all([rm(`${path}.notes`, { force: true }), rm(join(folder, `${archive[1] ?? ''}.log`), { force: true })]);
    return null;
  }
  const owner = /^images\/(\d+)\//.exec(file)?.[1];
  // Only a container's root is a folder; anything else that is one is not a volume.
  if (stats.isDirectory() && owner === undefined) throw new Error(`${location.path}/${file} is a folder, not a volume`);
  await rm(path, { recursive: stats.isDirectory() });
  if (owner !== undefined) await removeEmptyGuestFolder(path, Number(owner));
  return null;
}
