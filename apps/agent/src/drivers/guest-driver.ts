import type { ContainerInterface, GuestRuntime, GuestSpec, GuestType, ParamsOf } from '@corral/protocol';
import type { Socket } from 'node:net';
import type { CommandContext } from './command-context.js';
import type { FenceOrder } from './fence-orders.js';
import type { GuestBackups } from './guest-backups.js';
import type { GuestMigration } from './guest-migration.js';
import type { VolumeOperations } from './volume-operations.js';
import type { GuestSnapshots } from './guest-snapshots.js';

/** The drivers `CORRAL_DRIVER` may name. */
export const DRIVER_NAMES = ['pve', 'native', 'sim'] as const;
export type DriverName = (typeof DRIVER_NAMES)[number];

/**
 * What runs guests on this host. One implementation per kind of host:
 * `pve` runs `qm`/`pct`, `native` runs QEMU and LXC directly, `sim` simulates them. Every method
 * gets the request's context: its signal (abort what runs), its log (one task log line).
 *
 * Errors: a method throws `CommandFailure` (its code becomes the failure frame's) or an Error whose
 * message is the task's end text, written for the operator: `VM 100 is already running`,
 * `CT 200 is not running`.
 *
 * The state a method leaves is read back by `list()`: the guest commands report runtime changes
 * (and their vm-start/vm-stop events) from it, so a driver's methods need not report anything.
 */
export interface GuestDriver {
  readonly name: DriverName;
  create(params: ParamsOf<'guest.create'>, context: CommandContext): Promise<void>;
  start(guest: GuestSpec, context: CommandContext): Promise<void>;
  stop(type: GuestType, vmid: number, context: CommandContext): Promise<void>;
  /**
   * Stops the guest at once for the HA self-fence (ha/self-fence.ts): its processes are killed,
   * without asking the guest, waiting for its monitor or honouring a lock. A stopped guest is no error.
   */
  kill(type: GuestType, vmid: number, context: CommandContext): Promise<void>;
  /**
   * How the fence watchdog (ha/fence-watchdog-main.ts) kills the guest without the agent, as it
   * runs now: undefined when it does not run, or when the driver has no way that works without it.
   */
  fenceOrder(type: GuestType, vmid: number, signal: AbortSignal): Promise<FenceOrder | undefined>;
  /** Resolves once the guest is stopped; when `forceStop` is false and the time runs out, throws saying it still runs. */
  shutdown(params: ParamsOf<'guest.shutdown'>, context: CommandContext): Promise<void>;
  reboot(params: ParamsOf<'guest.reboot'>, context: CommandContext): Promise<void>;
  /** QEMU only; a driver throws for anything else. */
  reset(vmid: number, context: CommandContext): Promise<void>;
  suspend(type: GuestType, vmid: number, context: CommandContext): Promise<void>;
  resume(type: GuestType, vmid: number, context: CommandContext): Promise<void>;
  destroy(guest: GuestSpec, context: CommandContext): Promise<void>;
  clone(params: ParamsOf<'guest.clone'>, context: CommandContext): Promise<void>;
  template(guest: GuestSpec, context: CommandContext): Promise<void>;
  /** QEMU only: writes the VM's cloud-init drive (`guest.cloudinit.write`). */
  writeCloudinit(params: ParamsOf<'guest.cloudinit.write'>, context: CommandContext): Promise<void>;
  /** QEMU only: one human-monitor command's output. */
  monitor(vmid: number, command: string, context: CommandContext): Promise<string>;
  /** QEMU only: one QEMU guest agent command's `return` value (`guest.agent`); without a guest agent answering, `unavailable` with PVE's text. */
  guestAgent(params: ParamsOf<'guest.agent'>, context: CommandContext): Promise<unknown>;
  /** Containers only: the interfaces inside the running container, with their addresses. */
  containerInterfaces(vmid: number, context: CommandContext): Promise<ContainerInterface[]>;
  /** QEMU only: a connection to the running VM's VNC display (RFB), which the caller closes. A driver without a display of its own refuses (`unavailable`), saying so. */
  vnc(vmid: number, context: CommandContext): Promise<Socket>;
  /** A VM's migration between two nodes (the guest.migrate.* commands). */
  readonly migration: GuestMigration;
  /** Backups into a directory storage's `dump/` folder, and restores from them. */
  readonly backups: GuestBackups;
  /** The volumes of guests that exist: new ones, removed, grown and moved (docs/guests.md "Volumes of an existing guest"). */
  readonly volumes: VolumeOperations;
  /** Snapshots of the guest's volumes, taken, rolled back and deleted. */
  readonly snapshots: GuestSnapshots;
  /**
   * The guests of this host the driver knows, with their run state: at least every guest that runs
   * or is paused (a guest absent from the list is stopped). Cheap enough to call every 2 s.
   */
  list(signal: AbortSignal): Promise<GuestRuntime[]>;
}
