import { badParam } from '../errors/resource-errors.js';
import { booleanParam, integerParam, stringParam } from '../http/params.js';
import type { CreateCommand } from './lifecycle/create-command.js';

/**
 * Create parameters that are not config keys. PVE's create takes them, and clients send them on
 * every create (bpg sends `template=0`, Ansible `force=0`): each is accepted, and what Corral does
 * with it is in its description.
 */
export const CREATE_OPTIONS = {
  template: booleanParam({ description: 'Make the new guest a template once it is created (PVE: `template=1`).' }).optional(),
  unique: booleanParam({
    description: 'With a restore: new MAC addresses instead of the archived ones (a create always generates them).',
  }).optional(),
  'ha-managed': booleanParam({
    description: 'Put the new guest under HA: not built at create yet (only 0); add it through `POST /cluster/ha/resources` once created.',
  }).optional(),
  bwlimit: integerParam({
    description: "A restore's I/O limit in KiB/s: accepted for PVE clients, Corral does not limit it.",
    min: 0,
  }).optional(),
};

/** PVE's alias of `ide2` with `media=cdrom`, on a VM's create and config change. */
export const CDROM = stringParam({
  description: 'An alias of `ide2` with `media=cdrom`: an ISO volume `<storage>:iso/<file>`, or `none` (or `cdrom`) for an empty drive.',
  maxLength: 1024,
}).optional();

export const QEMU_CREATE_OPTIONS = {
  ...CREATE_OPTIONS,
  cdrom: CDROM,
  'live-restore': booleanParam({ description: 'Start the VM while it is restored: not supported by Corral (only 0).' }).optional(),
  'import-working-storage': stringParam({
    description: 'The storage where images are converted for `import-from`, which Corral does not import yet: refused.',
    pattern: /^[A-Za-z][A-Za-z0-9_.-]*$/,
    patternHint: 'must be a storage id',
  }).optional(),
};

export const LXC_CREATE_OPTIONS = {
  ...CREATE_OPTIONS,
  password: stringParam({
    description: "The root password inside the container, stored there hashed (never in Corral's config).",
    minLength: 5,
    maxLength: 256,
  }).optional(),
  'ssh-public-keys': stringParam({
    description: "Public SSH keys for root inside the container (OpenSSH's format, one per line): written to /root/.ssh/authorized_keys.",
    maxLength: 65_536,
  }).optional(),
  'ignore-unpack-errors': booleanParam({ description: 'Carry on when unpacking the template reports errors.' }).optional(),
};

/** Refuses the create-only parameters of a plain create (not a restore) where Corral cannot do what they ask. */
export function checkCreateOptions(command: CreateCommand): void {
  if (command.template && command.start) throw badParam('start', 'a template cannot start: give start=0 with template=1');
  if (command.haManaged)
    throw badParam(
      'ha-managed',
      'putting a new guest under HA at create is not built yet: add it through POST /cluster/ha/resources once created',
    );
  if (command.liveRestore)
    throw badParam('live-restore', 'applies to restores, and Corral does not start a VM while it is restored: restore, then start');
  if (command.importWorkingStorage !== undefined)
    throw badParam('import-working-storage', 'applies to import-from, which Corral does not import yet');
}
