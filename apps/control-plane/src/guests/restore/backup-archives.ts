import { Injectable } from '@nestjs/common';
import { allows, type Privilege } from '@corral/acl';
import type { BackupFile, GuestType } from '@corral/protocol';
import { permissionDenied } from '../../access/auth/authorizer.js';
import type { Principal } from '../../http/principal.js';
import { AccessState } from '../../access/state/access-state.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { badParam } from '../../errors/resource-errors.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { StoragesRepository } from '../../inventory/storage/storages.repository.js';
import { usableStorage } from '../../storage/volumes.js';

/** How long reading an archive's config may take: the config is its first member, but a compressed archive is read from its start. */
const READ_CONFIG_MS = 5 * 60_000;

/** A backup archive on a node's storage, as the agent's backup commands take it. */
export interface BackupArchive {
  readonly storage: StorageRow;
  readonly file: BackupFile;
  readonly type: GuestType;
  /** The guest it is a backup of (from its name). */
  readonly vmid: number;
}

/** Backup archives named by their volume id: where they are, who may read them, what they hold. */
@Injectable()
export class BackupArchives {
  constructor(
    private readonly storages: StoragesRepository,
    private readonly access: AccessState,
    private readonly hub: AgentHub,
  ) {}

  /**
   * The archive `volid` (checked by the parameter's pattern) on `node`; the caller must have
   * Datastore.AllocateSpace on its storage and VM.Backup on its guest (PVE's check for reading a
   * backup), and the storage must hold backups there (400 naming `param`).
   */
  async find(node: string, volid: string, param: string, caller: Principal): Promise<BackupArchive> {
    const colon = volid.indexOf(':');
    const storages = new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
    const storage = usableStorage(storages, volid.slice(0, colon), node, 'backup', param);
    const name = volid.slice(colon + 1 + 'backup/'.length);
    const [, type, vmid] = /^vzdump-(qemu|lxc)-(\d+)-/.exec(name) ?? [];
    if (type === undefined || vmid === undefined) throw badParam(param, `'${volid}' is not a backup archive`);
    const access = await this.access.current();
    const must = (path: string, privilege: Privilege) => {
      if (!allows(access, caller.subject, path, [privilege])) throw permissionDenied({ path, privileges: [privilege] });
    };
    must(`/storage/${storage.storage}`, 'Datastore.AllocateSpace');
    must(`/vms/${vmid}`, 'VM.Backup');
    return { storage, file: `dump/${name}`, type: type as GuestType, vmid: Number(vmid) };
  }

  /** The config file text the archive holds, read by the node's agent (a missing archive is its 404-like failure, as the agent words it). */
  async config(node: string, archive: BackupArchive): Promise<string> {
    const { config } = await this.hub.request(
      node,
      'guest.backup.config',
      { storage: { path: archive.storage.path, mountpoint: archive.storage.isMountpoint }, file: archive.file },
      { timeoutMs: READ_CONFIG_MS },
    );
    return config;
  }
}
