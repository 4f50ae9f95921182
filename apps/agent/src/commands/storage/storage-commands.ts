import { findProgram } from '../../host/find-program.js';
import { runChecked } from '../../host/run-program.js';
import type { AreaHandlers } from '../area-handlers.js';
import { parseFindmnt, parseVgs, parseZpoolList } from './storage-scan.js';

/** LVM warns on stderr about every inherited descriptor; the agent's are none of its business. */
const LVM_ENV = { LVM_SUPPRESS_FD_WARNINGS: '1' };

/**
 * What local storage the host can offer (PVE's `/nodes/{node}/scan/lvm`, `scan/zfs` and the
 * directory list in one). A kind whose tool is not installed is an empty list, not a failure.
 * Mount points are the kernel's, whatever the host root.
 */
export function storageCommands(): AreaHandlers<'node.storage.scan'> {
  return {
    'node.storage.scan': async (_params, { signal }) => {
      const [lvm, zfs, directories] = await Promise.all([
        whenInstalled('vgs', async () =>
          parseVgs(
            (
              await runChecked('vgs', ['--units', 'b', '--nosuffix', '--noheadings', '--separator', ':', '-o', 'vg_name,vg_size,vg_free'], {
                signal,
                env: LVM_ENV,
              })
            ).stdout,
          ),
        ),
        whenInstalled('zpool', async () =>
          parseZpoolList((await runChecked('zpool', ['list', '-Hp', '-o', 'name,size,free,health'], { signal })).stdout),
        ),
        runChecked('findmnt', ['-J', '-b', '-l', '-o', 'TARGET,SOURCE,FSTYPE,SIZE,AVAIL,FSROOT'], { signal }).then((output) =>
          parseFindmnt(output.stdout),
        ),
      ]);
      return { lvm, zfs, directories };
    },
  };
}

async function whenInstalled<T>(program: string, scan: () => Promise<T[]>): Promise<T[]> {
  return (await findProgram(program)) === undefined ? [] : scan();
}
