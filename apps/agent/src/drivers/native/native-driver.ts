import type { ContainerInterface, GuestRuntime, GuestSpec, GuestType, ParamsOf } from '@corral/protocol';
import type { Socket } from 'node:net';
import type { CommandContext } from '../command-context.js';
import type { FenceOrder } from '../fence-orders.js';
import { backupOwner } from '../backup-archive.js';
import type { GuestBackups } from '../guest-backups.js';
import type { GuestDriver } from '../guest-driver.js';
import type { GuestMigration } from '../guest-migration.js';
import type { VolumeOperations } from '../volume-operations.js';
import type { GuestSnapshots } from '../guest-snapshots.js';
import { containersHaveNo } from '../guest-messages.js';
import type { NativeGuests } from './native-guests.js';

/** The QEMU part: what a VM has beyond what a container has. */
export interface NativeVms extends NativeGuests {
  reset(vmid: number, context: CommandContext): Promise<void>;
  writeCloudinit(params: ParamsOf<'guest.cloudinit.write'>, context: CommandContext): Promise<void>;
  monitor(vmid: number, command: string, context: CommandContext): Promise<string>;
  guestAgent(params: ParamsOf<'guest.agent'>, context: CommandContext): Promise<unknown>;
  vnc(vmid: number, context: CommandContext): Promise<Socket>;
}

/** The LXC part: what a container has beyond what a VM has. */
export interface NativeContainers extends NativeGuests {
  interfaces(vmid: number, context: CommandContext): Promise<ContainerInterface[]>;
}

/**
 * The `native` driver: QEMU run directly for VMs, LXC's tools for
 * containers, each part handling its own guests; this joins them by guest type. `reset`,
 * `monitor`, `vnc` and `guestAgent` name no type: they go to the QEMU part, unless the id is one of the containers.
 */
export class NativeDriver implements GuestDriver {
  readonly name = 'native';
  /** The part of the guest's type. */
  readonly migration: GuestMigration;
  /** The part of the guest's type; reading an archive's config, the part its name says (`vzdump-qemu-...`). */
  readonly backups: GuestBackups;
  /** The part of the guest's type. */
  readonly volumes: VolumeOperations;
  readonly snapshots: GuestSnapshots;

  constructor(
    private readonly vms: NativeVms,
    private readonly containers: NativeContainers,
  ) {
    this.migration = {
      receive: (params, context) => this.part(params.guest.type).migration.receive(params, context),
      send: (params, context) => this.part(params.guest.type).migration.send(params, context),
      finish: (params, context) => this.part(params.guest.type).migration.finish(params, context),
      abort: (params, context) => this.part(params.guest.type).migration.abort(params, context),
    };
    this.backups = {
      backup: (params, context) => this.part(params.guest.type).backups.backup(params, context),
      config: (params, context) => this.part(backupOwner(params.file).type).backups.config(params, context),
      restore: (params, context) => this.part(params.guest.type).backups.restore(params, context),
    };
    this.volumes = {
      allocate: (params, context) => this.part(params.type).volumes.allocate(params, context),
      free: (params, context) => this.part(params.type).volumes.free(params, context),
      resize: (params, context) => this.part(params.type).volumes.resize(params, context),
      move: (params, context) => this.part(params.type).volumes.move(params, context),
    };
    this.snapshots = {
      create: (params, context) => this.part(params.guest.type).snapshots.create(params, context),
      rollback: (params, context) => this.part(params.guest.type).snapshots.rollback(params, context),
      delete: (params, context) => this.part(params.guest.type).snapshots.delete(params, context),
    };
  }

  create(params: ParamsOf<'guest.create'>, context: CommandContext): Promise<void> {
    return this.part(params.guest.type).create(params, context);
  }

  start(guest: GuestSpec, context: CommandContext): Promise<void> {
    return this.part(guest.type).start(guest, context);
  }

  stop(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    return this.part(type).stop(vmid, context);
  }

  kill(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    return this.part(type).kill(vmid, context);
  }

  fenceOrder(type: GuestType, vmid: number, signal: AbortSignal): Promise<FenceOrder | undefined> {
    return this.part(type).fenceOrder(vmid, signal);
  }

  shutdown({ type, vmid, timeout, forceStop }: ParamsOf<'guest.shutdown'>, context: CommandContext): Promise<void> {
    return this.part(type).shutdown(vmid, timeout, forceStop, context);
  }

  reboot({ guest, timeout }: ParamsOf<'guest.reboot'>, context: CommandContext): Promise<void> {
    return this.part(guest.type).reboot(guest, timeout, context);
  }

  async reset(vmid: number, context: CommandContext): Promise<void> {
    await this.refuseContainer(vmid, 'reset', context.signal);
    return this.vms.reset(vmid, context);
  }

  suspend(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    return this.part(type).suspend(vmid, context);
  }

  resume(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    return this.part(type).resume(vmid, context);
  }

  destroy(guest: GuestSpec, context: CommandContext): Promise<void> {
    return this.part(guest.type).destroy(guest, context);
  }

  clone(params: ParamsOf<'guest.clone'>, context: CommandContext): Promise<void> {
    return this.part(params.source.type).clone(params, context);
  }

  template(guest: GuestSpec, context: CommandContext): Promise<void> {
    return this.part(guest.type).template(guest, context);
  }

  writeCloudinit(params: ParamsOf<'guest.cloudinit.write'>, context: CommandContext): Promise<void> {
    return this.vms.writeCloudinit(params, context);
  }

  async monitor(vmid: number, command: string, context: CommandContext): Promise<string> {
    await this.refuseContainer(vmid, 'monitor', context.signal);
    return this.vms.monitor(vmid, command, context);
  }

  async guestAgent(params: ParamsOf<'guest.agent'>, context: CommandContext): Promise<unknown> {
    await this.refuseContainer(params.vmid, 'QEMU guest agent', context.signal);
    return this.vms.guestAgent(params, context);
  }

  containerInterfaces(vmid: number, context: CommandContext): Promise<ContainerInterface[]> {
    return this.containers.interfaces(vmid, context);
  }

  async vnc(vmid: number, context: CommandContext): Promise<Socket> {
    await this.refuseContainer(vmid, 'VNC display', context.signal);
    return this.vms.vnc(vmid, context);
  }

  async list(signal: AbortSignal): Promise<GuestRuntime[]> {
    const [vms, containers] = await Promise.all([this.vms.list(signal), this.containers.list(signal)]);
    return [...vms, ...containers];
  }

  private part(type: GuestType): NativeGuests {
    return type === 'qemu' ? this.vms : this.containers;
  }

  private async refuseContainer(vmid: number, what: Parameters<typeof containersHaveNo>[0], signal: AbortSignal): Promise<void> {
    const containers = await this.containers.list(signal);
    if (containers.some((container) => container.vmid === vmid)) throw containersHaveNo(what, vmid);
  }
}
