import type { GuestRuntime, GuestSpec, ParamsOf } from '@corral/protocol';
import type { CommandContext } from '../command-context.js';
import type { FenceOrder } from '../fence-orders.js';
import type { GuestBackups } from '../guest-backups.js';
import type { VolumeOperations } from '../volume-operations.js';
import type { GuestSnapshots } from '../guest-snapshots.js';
import type { GuestMigration } from '../guest-migration.js';

/**
 * One guest type's part of the `native` driver (`NativeQemu`, `NativeLxc`): the `GuestDriver`
 * methods for that type, without the `type` argument it implies, plus `list` for its own guests.
 * The native driver joins the two by guest type.
 */
export interface NativeGuests {
  create(params: ParamsOf<'guest.create'>, context: CommandContext): Promise<void>;
  start(guest: GuestSpec, context: CommandContext): Promise<void>;
  stop(vmid: number, context: CommandContext): Promise<void>;
  /** As `GuestDriver.kill`. */
  kill(vmid: number, context: CommandContext): Promise<void>;
  /** As `GuestDriver.fenceOrder`. */
  fenceOrder(vmid: number, signal: AbortSignal): Promise<FenceOrder | undefined>;
  shutdown(vmid: number, timeoutS: number, forceStop: boolean, context: CommandContext): Promise<void>;
  reboot(guest: GuestSpec, timeoutS: number, context: CommandContext): Promise<void>;
  suspend(vmid: number, context: CommandContext): Promise<void>;
  resume(vmid: number, context: CommandContext): Promise<void>;
  destroy(guest: GuestSpec, context: CommandContext): Promise<void>;
  clone(params: ParamsOf<'guest.clone'>, context: CommandContext): Promise<void>;
  template(guest: GuestSpec, context: CommandContext): Promise<void>;
  list(signal: AbortSignal): Promise<GuestRuntime[]>;
  /** Backups and restores of its own guests. */
  readonly backups: GuestBackups;
  /** The volumes of its guests that exist. */
  readonly volumes: VolumeOperations;
  /** Snapshots of its own guests. */
  readonly snapshots: GuestSnapshots;
  /** Migrations of its own guests between nodes. */
  readonly migration: GuestMigration;
}
