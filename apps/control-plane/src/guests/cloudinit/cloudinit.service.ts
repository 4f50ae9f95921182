import { Injectable } from '@nestjs/common';
import type { CloudinitFile, GuestVolume } from '@corral/protocol';
import { DataSource } from 'typeorm';
import type { Principal } from '../../http/principal.js';
import { ApiError } from '../../errors/api-error.js';
import { badParam } from '../../errors/resource-errors.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { StoragesRepository } from '../../inventory/storage/storages.repository.js';
import { usableStorage, volumePath } from '../../storage/volumes.js';
import { parseItems } from '@corral/pve-formats';
import { existingGuest } from '../existing-guest.js';
import { QEMU } from '../guest-kinds.js';
import { guestSpec } from '../guest-spec.js';
import { GuestTasks, type GuestWork } from '../guest-tasks.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import type { GuestRow } from '../../inventory/guests/guest.entity.js';
import { cloudinitDriveKey, isCloudinitKey } from './cloudinit-drive.js';
import { cloudinitFormat, DRIVE_LAYOUT, renderCloudinit, type CloudinitPart } from './cloudinit-render.js';
import { GuestCloudinitRow } from './guest-cloudinit.entity.js';

const WRITE_MS = 120_000;
const MASKED = '**********';

type Entry = { key: string; value?: string; pending?: string; delete?: 1 };

/**
 * A VM's cloud-init drive (docs/guests.md "Cloud-init"): its files rendered here from the config,
 * written by the node's agent at every start and on `PUT .../cloudinit`; the keys each generation
 * used are kept (`guest_cloudinit`), so `GET .../cloudinit` shows what is pending.
 */
@Injectable()
export class CloudinitService {
  constructor(
    private readonly view: GuestView,
    private readonly tasks: GuestTasks,
    private readonly storages: StoragesRepository,
    private readonly dataSource: DataSource,
  ) {}

  /** PVE's list: each cloud-init key with the value of the last generation, the pending one, or `delete`. Before any generation, the config's values count as generated, as PVE shows a new VM. */
  async pending(node: string, vmid: number): Promise<Entry[]> {
    const { config } = existingGuest(this.view, QEMU, node, vmid).row;
    const current = cloudinitKeys(config);
    const active = (await this.dataSource.manager.findOneBy(GuestCloudinitRow, { vmid }))?.active ?? current;
    const shown = (key: string, value: string) => (key === 'cipassword' ? MASKED : value);
    return [...new Set([...Object.keys(active), ...Object.keys(current)])].sort().map((key): Entry => {
      const [was, now] = [active[key], current[key]];
      if (now === undefined) return { key, ...(was !== undefined ? { value: shown(key, was) } : {}), delete: 1 };
      if (was === undefined) return { key, pending: shown(key, now) };
      return was === now ? { key, value: shown(key, now) } : { key, value: shown(key, was), pending: shown(key, now) };
    });
  }

  /** `PUT .../cloudinit`: the drive generated again, in the VM's turn; answered once written. */
  async update(node: string, vmid: number, caller: Principal): Promise<void> {
    this.driveOf(existingGuest(this.view, QEMU, node, vmid).row);
    await this.tasks.completed({ node, vmid, type: 'cloudinit', caller, work: (work) => this.generate(work, vmid) });
  }

  /** One generated file as the drive would hold it now. */
  async dump(node: string, vmid: number, type: Exclude<CloudinitPart, 'vendor'>): Promise<string> {
    const { row } = existingGuest(this.view, QEMU, node, vmid);
    this.driveOf(row);
    return renderCloudinit(row.config, vmid)[type];
  }

  /** Writes the VM's drive from its config now, if it has one (a start does this first, as PVE's). */
  async generate(work: GuestWork, vmid: number): Promise<void> {
    const { row } = existingGuest(this.view, QEMU, undefined, vmid);
    if (cloudinitDriveKey(row.config) === undefined) return;
    const storages = await this.storageMap();
    const volume = this.volumeOf(row, storages);
    const format = cloudinitFormat(row.config);
    const rendered = renderCloudinit(row.config, vmid);
    const custom = this.snippets(row, storages);
    const { label, paths } = DRIVE_LAYOUT[format];
    const files = (Object.keys(paths) as CloudinitPart[]).map((part): CloudinitFile => {
      const snippet = custom.get(part);
      return snippet === undefined ? { path: paths[part], content: rendered[part] } : { path: paths[part], snippet };
    });
    await work.agent('guest.cloudinit.write', { vmid, volume, label, files }, WRITE_MS);
    await this.dataSource.manager.upsert(GuestCloudinitRow, { vmid, active: cloudinitKeys(row.config) }, ['vmid']);
  }

  /** Removes the VM's drive from its node (its destroy: the drive is no volume the driver's destroy knows). */
  async release(work: GuestWork, row: GuestRow): Promise<void> {
    if (cloudinitDriveKey(row.config) === undefined) return;
    await work.agent(
      'guest.volume.free',
      { type: 'qemu', vmid: row.vmid, volumes: [this.volumeOf(row, await this.storageMap())] },
      WRITE_MS,
    );
  }

  /** The drive's key, or a 409 saying the VM has none. */
  private driveOf(row: GuestRow): string {
    const key = cloudinitDriveKey(row.config);
    if (key === undefined)
      throw new ApiError('GUEST_STATE', `VM ${row.vmid} has no cloud-init drive: add one first (e.g. ide2: <storage>:cloudinit)`);
    return key;
  }

  private volumeOf(row: GuestRow, storages: ReadonlyMap<string, StorageRow>): GuestVolume {
    const key = this.driveOf(row);
    const volume = guestSpec(row, storages).volumes.find((candidate) => candidate.key === key);
    if (volume === undefined) throw new ApiError('INTERNAL', `VM ${row.vmid}: ${key} is not a volume`);
    return volume;
  }

  /** `cicustom`'s snippets by part, as host paths: each must be a snippet volume of a storage that holds snippets (400 naming `cicustom`). */
  private snippets(row: GuestRow, storages: ReadonlyMap<string, StorageRow>): Map<CloudinitPart, string> {
    const cicustom = row.config['cicustom'];
    const items = cicustom === undefined ? new Map<string, string>() : parseItems(cicustom, {});
    return new Map(
      [...items].map(([part, volid]) => {
        const colon = volid.indexOf(':');
        const storage = usableStorage(storages, volid.slice(0, colon), row.node, 'snippets', 'cicustom');
        const volname = volid.slice(colon + 1);
        if (!volname.startsWith('snippets/')) throw badParam('cicustom', `${volid} is not in the snippets directory`);
        return [part as CloudinitPart, volumePath(storage, volname)];
      }),
    );
  }

  private async storageMap(): Promise<Map<string, StorageRow>> {
    return new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
  }
}

function cloudinitKeys(config: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(config).filter(([key]) => isCloudinitKey(key)));
}
