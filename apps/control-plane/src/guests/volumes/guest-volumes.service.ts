import { Injectable } from '@nestjs/common';
import { allows } from '@corral/acl';
import { permissionDenied } from '../../access/auth/authorizer.js';
import type { Principal } from '../../http/principal.js';
import { AccessState } from '../../access/state/access-state.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { ApiError } from '../../errors/api-error.js';
import { badParam, notFound } from '../../errors/resource-errors.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { StoragesRepository } from '../../inventory/storage/storages.repository.js';
import { parseVolname, usableStorage } from '../../storage/volumes.js';
import { configDigest, formatSize, formatVolume, freeUnusedKey, isUnusedKey, parseSize, type VolumeValue } from '@corral/pve-formats';
import { QEMU, type GuestKind } from '../guest-kinds.js';
import { GuestTasks } from '../guest-tasks.js';
import { GuestView, type GuestState } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { linkedClonesOf } from '../linked-clones.js';
import { NewGuests } from '../new-guests.js';
import { runState } from '../status-entry.js';
import { mayGiveSkiplock } from '../config-change.js';
import { ownVolume, parseValue } from './volume-change.js';
import { VolumeChanges, VOLUME_MS, volumesOf } from './volume-changes.js';
import { newVolumeName } from './volume-names.js';

/** PVE's resize sizes: `+` grows by, else the new size; a bare number is bytes. */
const RESIZE = /^(\+)?(\d+(?:\.\d+)?)([KMGT])?$/;

export interface ResizeRequest {
  readonly node: string;
  readonly vmid: number;
  readonly disk: string;
  readonly size: string;
  readonly digest?: string;
  readonly skiplock?: boolean;
}

/** `move_disk` / `move_volume`, with the names of their parameters (`disk`/`volume`, `target-disk`/`target-volume`) for the 400s. */
export interface MoveRequest {
  readonly node: string;
  readonly vmid: number;
  readonly key: string;
  readonly keyParam: string;
  readonly storage?: string;
  readonly format?: 'qcow2' | 'raw';
  readonly delete?: boolean;
  readonly targetVmid?: number;
  readonly targetKey?: string;
  readonly targetKeyParam: string;
  readonly digest?: string;
  readonly targetDigest?: string;
}

/**
 * Resizing, moving and unlinking the volumes of existing guests (docs/guests.md "Volumes of an
 * existing guest"): checked before the task (400 naming the parameter, 404, 409), then run in the
 * guest's queue, the config written once the agent has done its part.
 */
@Injectable()
export class GuestVolumesService {
  constructor(
    private readonly view: GuestView,
    private readonly repository: GuestsRepository,
    private readonly tasks: GuestTasks,
    private readonly storages: StoragesRepository,
    private readonly newGuests: NewGuests,
    private readonly access: AccessState,
    private readonly hub: AgentHub,
    private readonly changes: VolumeChanges,
  ) {}

  /** Grows a volume (PVE's `resize`: a task in PVE 8 and later); shrinking is refused. */
  async resize(kind: GuestKind, request: ResizeRequest, caller: Principal): Promise<string> {
    const { node, vmid, disk } = request;
    const state = this.existing(kind, node, vmid);
    mayGiveSkiplock({ skiplock: request.skiplock === true }, caller);
    const volume = this.ownVolumeAt(kind, state.row.config, disk, 'disk');
    if (isUnusedKey(disk)) throw badParam('disk', `${disk} is not attached: attach it before resizing it`);
    const size = newSize(request.size, parseSize(volume.options.get('size') ?? '') ?? undefined);
    this.mayChange(kind, state, request.digest, request.skiplock === true);
    const storages = await this.storageMap();
    return this.tasks.submit({
      node,
      vmid,
      type: 'resize',
      caller,
      work: async (work) => {
        const { row } = this.existing(kind, node, vmid);
        const [resolved] = volumesOf(kind, vmid, row.config, [disk], storages);
        if (resolved === undefined || row.config[disk] !== state.row.config[disk])
          throw new ApiError('CONFIG_CHANGED', `${disk} of ${kind.noun} ${vmid} changed meanwhile: resize it again`);
        await work.agent('guest.volume.resize', { type: kind.type, vmid, volume: resolved, size }, VOLUME_MS);
        await this.repository.update(vmid, async (current) => ({
          config: { ...current.config, [disk]: withSize(parseValue(kind, disk, current.config[disk] ?? ''), size) },
        }));
        await this.view.reload(vmid);
      },
    });
  }

  /** `move_disk` / `move_volume`: a copy to another storage (and format), or to another guest of the node (`targetVmid`). */
  async move(kind: GuestKind, request: MoveRequest, caller: Principal): Promise<string> {
    const { node, vmid, key } = request;
    const state = this.existing(kind, node, vmid);
    const volume = this.ownVolumeAt(kind, state.row.config, key, request.keyParam);
    if (runState(state) !== 'stopped') {
      throw new ApiError(
        'GUEST_STATE',
        kind.type === 'lxc'
          ? 'cannot move volumes of a running container'
          : `VM ${vmid} is running: moving the disk of a running VM is not supported by Corral yet (stop it first)`,
      );
    }
    this.mayChange(kind, state, request.digest, false);
    if (
      linkedClonesOf(
        vmid,
        this.view.list().map((guest) => guest.row),
      ).length > 0
    )
      throw new ApiError('IN_USE', `${kind.noun} ${vmid} is the base of linked clones: its volumes cannot move`);
    const storages = await this.storageMap();
    if (volume.source.kind !== 'volume') throw badParam(request.keyParam, `${key} holds no volume`);
    const source = volume.source;
    const reassign = request.targetVmid !== undefined && request.targetVmid !== vmid;
    const targetVmid = request.targetVmid ?? vmid;
    const targetKey = reassign ? (request.targetKey ?? key) : key;
    let targetConfig = state.row.config;
    if (reassign) {
      if (request.storage !== undefined)
        throw badParam('storage', 'a volume given to another guest stays on its storage: give storage or target-vmid, not both');
      if (key === 'rootfs' || !kind.isVolumeKey(targetKey) || targetKey === 'rootfs')
        throw badParam(request.targetKeyParam, `'${targetKey}' cannot take ${key} of ${kind.noun} ${vmid}`);
      const target = this.view.get(targetVmid);
      if (target === undefined || target.row.type !== kind.type) throw notFound(`${kind.noun} ${targetVmid}`);
      if (target.row.node !== node)
        throw badParam(
          'target-vmid',
          `${kind.noun} ${targetVmid} is on node '${target.row.node}': volumes are given to guests of the same node`,
        );
      if (runState(target) !== 'stopped')
        throw new ApiError('GUEST_STATE', `${kind.noun} ${targetVmid} is running: give it volumes once it is stopped`);
      this.mayChange(kind, target, request.targetDigest, false);
      if (target.row.config[targetKey] !== undefined)
        throw badParam(request.targetKeyParam, `${kind.noun} ${targetVmid} has ${targetKey} already`);
      if (kind.type === 'lxc' && !volume.options.has('mp'))
        throw badParam(request.targetKeyParam, `${key} has no mount point (mp=) to keep in CT ${targetVmid}`);
      if (!allows(await this.access.current(), caller.subject, `/vms/${targetVmid}`, ['VM.Config.Disk']))
        throw permissionDenied({ path: `/vms/${targetVmid}`, privileges: ['VM.Config.Disk'] });
      targetConfig = target.row.config;
    } else if (request.storage === undefined) {
      throw badParam('storage', 'give the storage to move to (or target-vmid)');
    }
    const storage = request.storage ?? source.storage;
    const currentFormat = /\.(qcow2|raw)$/.exec(source.volname)?.[1] as 'qcow2' | 'raw' | undefined;
    const format = kind.type === 'qemu' ? (request.format ?? currentFormat ?? 'qcow2') : 'raw';
    if (request.format !== undefined && kind.type === 'lxc') throw badParam('format', 'container volumes have no format');
    if (!reassign && storage === source.storage && (kind.type === 'lxc' || format === currentFormat))
      throw badParam('storage', `${key} is on storage '${storage}'${kind.type === 'qemu' ? ` as ${format}` : ''} already`);
    usableStorage(storages, storage, node, kind.type === 'qemu' ? 'images' : 'rootdir', 'storage');
    await this.newGuests.mayAllocate(new Set([storage]), caller);
    this.hub.reachable(node);
    const volname = newVolumeName(kind.type, targetVmid, storage, format, targetConfig);
    const moved = formatVolume({ source: { kind: 'volume', storage, volname }, options: volume.options });
    const remove = reassign || request.delete === true;
    return this.tasks.submit({
      node,
      vmid,
      type: kind.type === 'qemu' ? 'qmmove' : 'move_volume',
      caller,
      work: async (work) => {
        const { row } = this.existing(kind, node, vmid);
        if (row.config[key] !== state.row.config[key])
          throw new ApiError('CONFIG_CHANGED', `${key} of ${kind.noun} ${vmid} changed meanwhile: move it again`);
        const [from] = volumesOf(kind, vmid, row.config, [key], storages);
        const [to] = volumesOf(kind, targetVmid, { [targetKey]: moved }, [targetKey], storages);
        if (from === undefined || to === undefined) throw new ApiError('INTERNAL', `${key} of ${kind.noun} ${vmid} resolves to no volume`);
        await work.agent('guest.volume.move', { type: kind.type, vmid, source: from, target: to, targetVmid, delete: remove }, VOLUME_MS);
        await this.repository.update(vmid, async (current) => {
          const config = { ...current.config };
          delete config[key];
          if (!reassign) config[key] = moved;
          if (!remove) config[freeUnusedKey((candidate) => candidate in config)] = `${source.storage}:${source.volname}`;
          return { config };
        });
        if (reassign) await this.repository.update(targetVmid, async (current) => ({ config: { ...current.config, [targetKey]: moved } }));
        await this.view.reload(vmid);
        await this.view.reload(targetVmid);
      },
    });
  }

  /** PVE's `unlink`: the disks of `idlist` removed from the config; their volumes become `unusedN`, or with `force` are destroyed. */
  async unlink(node: string, vmid: number, idlist: string, force: boolean, caller: Principal): Promise<null> {
    this.existing(QEMU, node, vmid);
    const keys = idlist.split(/[,;\s]+/).filter((key) => key !== '');
    const other = keys.find((key) => !QEMU.isVolumeKey(key) && !isUnusedKey(key));
    if (other !== undefined) throw badParam('idlist', `'${other}' is not a disk (unlink removes disks and unused volumes)`);
    return this.changes.now({ kind: QEMU, node, vmid }, { set: {}, deleted: keys }, { caller, force });
  }

  /** The guest's own volume at `key` (a disk, root, mount point or `unusedN`), else a 400 naming `param`. */
  private ownVolumeAt(kind: GuestKind, config: Readonly<Record<string, string>>, key: string, param: string): VolumeValue {
    const value = config[key];
    if (value === undefined) throw badParam(param, `${kind.type === 'qemu' ? 'disk' : 'volume'} '${key}' does not exist`);
    const volume = parseValue(kind, key, value);
    if (!ownVolume(volume) || (volume.source.kind === 'volume' && parseVolname(volume.source.volname) === null))
      throw badParam(param, `${key} is not a volume of ${kind.noun} (a CD-ROM, none or another storage's volume)`);
    return volume;
  }

  private mayChange(kind: GuestKind, state: GuestState, digest: string | undefined, skiplock: boolean): void {
    if (!skiplock && state.row.lock !== null)
      throw new ApiError('GUEST_STATE', `${kind.noun} ${state.row.vmid} is locked (${state.row.lock})`);
    if (digest !== undefined && digest !== configDigest(state.row.config)) {
      throw new ApiError(
        'CONFIG_CHANGED',
        `the configuration of ${kind.noun} ${state.row.vmid} has changed since digest ${digest}: read it again`,
      );
    }
  }

  private existing(kind: GuestKind, node: string, vmid: number): GuestState {
    const state = this.view.get(vmid);
    if (!state || state.row.type !== kind.type) throw notFound(`${kind.noun} ${vmid}`);
    if (state.row.node !== node)
      throw new ApiError('NOT_FOUND', `${kind.noun} ${vmid} does not exist on node '${node}' (it is on node '${state.row.node}')`);
    return state;
  }

  private async storageMap(): Promise<Map<string, StorageRow>> {
    return new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
  }
}

/** The new size in bytes of PVE's `size` (`+1G`, `10G`, `1073741824`); refused (400 naming `size`) below `current`, or relative to an unknown size. */
export function newSize(text: string, current: number | undefined): number {
  const [, plus, amount = '', unit] = RESIZE.exec(text) ?? [];
  if (amount === '')
    throw badParam('size', `'${text}' is not a size: +<n>[KMGT] to grow by, or <n>[KMGT] for the new size (no unit: bytes)`);
  const bytes = Math.round(Number(amount) * (unit === undefined ? 1 : (parseSize(`1${unit}`) ?? 1)));
  if (plus !== undefined && current === undefined)
    throw badParam('size', 'the size of this volume is not known (its config has no size=): give the new size, not +<n>');
  const size = plus !== undefined ? (current ?? 0) + bytes : bytes;
  if (current !== undefined && size < current)
    throw badParam('size', `shrinking disks is not supported (${formatSize(current)} now, ${formatSize(size)} asked for)`);
  return size;
}

function withSize(volume: VolumeValue, size: number): string {
  const options = new Map(volume.options);
  options.set('size', formatSize(size));
  return formatVolume({ source: volume.source, options });
}
