import type { ParamsOf, ResultOf } from '@corral/protocol';
import { CommandFailure } from '../../host/command-failure.js';
import type { CommandContext } from '../command-context.js';
import type { GuestMigration } from '../guest-migration.js';

/** Runs `qm` or `pct` with its output lines going to the task log; fails with its last line. */
export type PveToolRunner = (program: 'qm' | 'pct', args: readonly string[], context: CommandContext) => Promise<unknown>;

/**
 * The `pve` driver's migration: PVE moves its guests itself, so the source runs
 * `qm migrate <vmid> <target> [--online 1 --with-local-disks 1] [--targetstorage ...]`, or for a
 * container (always stopped: the control plane shuts a running one down first, PVE's restart mode)
 * `pct migrate <vmid> <target> [--target-storage ...]`, and PVE's own tunnel does the rest on the
 * target (both nodes must be one PVE cluster). The target's steps do nothing: it receives on no
 * port of Corral's (0), and has nothing to finish or undo.
 */
export class PveMigration implements GuestMigration {
  constructor(private readonly run: PveToolRunner) {}

  async receive(): Promise<ResultOf<'guest.migrate.receive'>> {
    return { nbdPort: 0 };
  }

  async send(params: ParamsOf<'guest.migrate.send'>, context: CommandContext): Promise<ResultOf<'guest.migrate.send'>> {
    await this.run(params.guest.type === 'qemu' ? 'qm' : 'pct', migrateArguments(params), context);
    // PVE resumes a VM that ran on its target itself; what is reported here only goes to finish, which does nothing.
    return { state: params.online ? 'running' : 'stopped' };
  }

  async finish(): Promise<void> {}

  async abort(): Promise<void> {}
}

/**
 * `qm migrate`'s and `pct migrate`'s arguments: local disks go along with an online migration of a
 * VM (`--with-local-disks`), and when a storage's volumes go to another storage, each storage is
 * mapped to the one its volumes will be on (`--targetstorage source:target,...`, for a container
 * `--target-storage`). PVE maps storages, not volumes: two volumes of one storage going to two
 * storages cannot be asked of it.
 */
export function migrateArguments({ guest, copy, online, target }: ParamsOf<'guest.migrate.send'>): string[] {
  const qemu = guest.type === 'qemu';
  const noun = qemu ? 'VM' : 'CT';
  const pairs = new Map<string, string>();
  for (const key of copy) {
    const from = guest.volumes.find((volume) => volume.key === key)?.volid;
    const to = target.volids[key];
    if (from === undefined || to === undefined)
      throw new CommandFailure('invalid-params', `${noun} ${guest.vmid}: volume ${key} has no volume id on both nodes`);
    const [source, destination] = [storageOf(from), storageOf(to)];
    const mapped = pairs.get(source);
    if (mapped !== undefined && mapped !== destination)
      throw new CommandFailure(
        'invalid-params',
        `${noun} ${guest.vmid}: the volumes on storage '${source}' go to both '${mapped}' and '${destination}', which ${qemu ? 'qm' : 'pct'} migrate cannot do`,
      );
    pairs.set(source, destination);
  }
  const moves = [...pairs].some(([source, destination]) => source !== destination);
  return [
    'migrate',
    String(guest.vmid),
    target.node,
    ...(online && qemu ? ['--online', '1', ...(copy.length > 0 ? ['--with-local-disks', '1'] : [])] : []),
    ...(moves ? [qemu ? '--targetstorage' : '--target-storage', [...pairs].map((pair) => pair.join(':')).join(',')] : []),
  ];
}

function storageOf(volid: string): string {
  return volid.slice(0, volid.indexOf(':'));
}
