import type { BackupCompression, GuestType } from '@corral/protocol';
import { CONFIG_MEMBERS, writeArchive, type BackupFile } from '../backup-archive.js';
import { withStagedFiles } from '../backup-staging.js';

/** What a simulated archive holds in place of disk contents, so that whoever opens one knows what it is. */
const SIMULATED = "Written by the Corral agent's sim driver: this archive holds the guest's config and no disk contents.\n";

/**
 * A real archive of a simulated guest, in the layout of the native driver's (backup-archive.ts):
 * its config, and a file `SIMULATED` saying what it is. Storage content lists, prunes and restores
 * then work on it as on any other, at the scale the simulator runs. Resolves with its size.
 */
export function writeSimulatedArchive(
  storagePath: string,
  file: BackupFile,
  type: GuestType,
  config: string,
  compress: BackupCompression,
  signal: AbortSignal,
): Promise<number> {
  const configMember = CONFIG_MEMBERS[type];
  // Beside the config: at the root of a container's tree, at the top of a VM's archive.
  const noteMember = type === 'lxc' ? './SIMULATED' : 'SIMULATED';
  return withStagedFiles(storagePath, file, { [configMember]: config, [noteMember]: SIMULATED }, (staging) =>
    writeArchive({ storagePath, file, compress, sources: [{ dir: staging, members: [configMember, noteMember] }], signal }),
  );
}
