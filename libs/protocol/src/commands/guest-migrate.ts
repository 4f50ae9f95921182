import { z } from 'zod';
import { IpAddress, NodeName } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';
import { ConfigKey, GuestSpec } from './guest.js';

/*
 * Migration of a guest between two nodes (docs/guests.md "Migration"). The control plane
 * drives it as one task over both agents: `guest.migrate.receive` on the target, then
 * `guest.migrate.send` on the source, then `guest.migrate.finish` on the target; when the send
 * fails, `guest.migrate.abort` on the target instead. The agents talk to each other directly: the
 * target listens on `listen` (the address the control plane sees its agent connect from) and the
 * source connects there. The traffic is not encrypted (PVE's `migration_type=insecure`).
 */

/** A TCP port; 0 where the driver moves the guest on its own (the `pve` driver: `qm migrate`). */
const Port = z.int().min(0).max(65_535);

/** The keys of the volumes that move: those on storages local to each node; a volume on shared storage stays where it is. */
const Copy = z.array(ConfigKey).max(64);

/** The run state a guest had on the source when it left: `stopped` for an offline migration. */
const MigratedState = z.enum(['running', 'paused', 'stopped']);

export const guestMigrateReceive = {
  description:
    "Prepare the target of a migration: create the volumes of `copy` (empty, of their size; an existing one is refused) and serve them on `listen`: a VM's over NBD, each as an export named after its key; a container's (always offline) as one tar archive per connection, `<key>\\n` first. For an online migration also start the VM waiting for its state (QEMU's `-incoming`), paused until `guest.migrate.finish`. On failure nothing of it is left.",
  params: z.strictObject({
    /** The guest with its volumes as they will be on this node. */
    guest: GuestSpec,
    copy: Copy,
    online: z.boolean(),
    listen: IpAddress,
  }),
  result: z.strictObject({
    /** Where the volumes of `copy` are served (a VM's over NBD, a container's as tar archives). */
    nbdPort: Port,
    /** Online: where the VM's state is received. */
    migrationPort: Port.optional(),
  }),
} satisfies CommandDefinition;

export const guestMigrateSend = {
  description:
    "Move the guest to the target prepared by guest.migrate.receive. Online (the VM runs or is paused): its disks of `copy` are mirrored while it runs, its state follows, and once all of it arrived its QEMU here quits. Offline (it is stopped; a container always is): each volume of `copy` is copied. Then the volumes of `copy` are removed from this node (and a container's config). On failure the guest keeps running here, with its volumes.",
  params: z.strictObject({
    /** The guest with its volumes as they are on this node. */
    guest: GuestSpec,
    copy: Copy,
    online: z.boolean(),
    target: z.strictObject({
      node: NodeName,
      address: IpAddress,
      nbdPort: Port,
      migrationPort: Port.optional(),
      /** The volume ids the guest will have there (the `pve` driver maps storages by them). */
      volids: z.record(ConfigKey, z.string().max(1024)),
    }),
  }),
  result: z.strictObject({ state: MigratedState }),
} satisfies CommandDefinition;

export const guestMigrateFinish = {
  description:
    "End a migration on its target once guest.migrate.send succeeded: stop serving the volumes, and for an online migration let the VM run again as it did on the source (`state`). A template's volumes are made read-only again; a container's config is written.",
  params: z.strictObject({ guest: GuestSpec, copy: Copy, state: MigratedState }),
  result: z.null(),
} satisfies CommandDefinition;

export const guestMigrateAbort = {
  description:
    'Undo guest.migrate.receive after a failed send: stop the waiting VM (only a QEMU started for the migration, never a VM that runs here) and what serves the volumes, and remove the volumes of `copy`.',
  params: z.strictObject({ guest: GuestSpec, copy: Copy }),
  result: z.null(),
} satisfies CommandDefinition;
