import { Injectable } from '@nestjs/common';
import type { Principal } from '../../http/principal.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { badParam } from '../../errors/resource-errors.js';
import { NodesService } from '../../nodes/nodes.service.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { usableStorage, volumePath } from '../../storage/volumes.js';
import { givenConfig, mayGiveKeys } from '../config-given.js';
import { checkCreateOptions } from '../create-options.js';
import { guestSpec } from '../guest-spec.js';
import { GuestStates } from '../guest-states.js';
import { GuestTasks } from '../guest-tasks.js';
import { CREATE_MS } from '../guest-timeouts.js';
import { resolveNewConfig } from '../new-config.js';
import { NewGuests } from '../new-guests.js';
import { PowerService } from '../power/power.service.js';
import { archiveOf, restoreRequestOf } from '../restore/restore-params.js';
import { RestoreService } from '../restore/restore.service.js';
import { sha512Crypt } from '@corral/pve-formats';
import type { CreateCommand } from './create-command.js';
import { TemplateService } from './template.service.js';

/**
 * Creates (PVE's `POST /nodes/{node}/<qemu|lxc>`): a restore when the create names a backup,
 * else a new guest of the given config, checked before the task starts (a bad key is a 400, a
 * taken vmid a 409), inserted locked `create`, its volumes made by the agent.
 */
@Injectable()
export class CreateService {
  constructor(
    private readonly states: GuestStates,
    private readonly tasks: GuestTasks,
    private readonly newGuests: NewGuests,
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
    private readonly restores: RestoreService,
    private readonly templates: TemplateService,
    private readonly power: PowerService,
  ) {}

  async create(command: CreateCommand, caller: Principal): Promise<string> {
    const restore = restoreRequestOf(command, archiveOf(command));
    if (restore !== undefined) return this.restores.restore(restore, caller);
    if (command.guest.kind.type === 'qemu' && command.storage !== undefined)
      throw badParam('storage', 'applies to restores only (with archive): give a disk as scsi0: <storage>:<size in GiB>');
    return this.createNew(command, caller);
  }

  private async createNew(command: CreateCommand, caller: Principal): Promise<string> {
    const { guest } = command;
    const { kind, node, vmid } = guest;
    this.nodes.existing(node);
    this.hub.reachable(node);
    checkCreateOptions(command);
    const given = givenConfig(command.given);
    // PVE takes an empty start order from clients that always send the key: none.
    if (given['startup'] === '') delete given['startup'];
    mayGiveKeys(Object.keys(given), caller);
    if (kind.type === 'lxc') given['rootfs'] ??= `${command.storage ?? 'local'}:4`;
    const storages = await this.states.storageMap();
    const resolved = resolveNewConfig(kind, given, { vmid, node, storages });
    await this.newGuests.mayAllocate(resolved.storages, caller);
    const { ostemplate } = command;
    const templateFile = kind.type === 'lxc' && ostemplate !== undefined ? templatePath(ostemplate, node, storages) : undefined;
    const made = guestSpec({ vmid, type: kind.type, config: resolved.config }, storages);
    // The `pve` driver hands `pct create` the template's volume id; it is not a config key after the create.
    const spec = ostemplate !== undefined ? { ...made, config: { ...made.config, ostemplate } } : made;
    const container = {
      ...(templateFile !== undefined ? { ostemplate: templateFile } : {}),
      ...(command.ignoreUnpackErrors ? { ignoreUnpackErrors: true } : {}),
      // Hashed here: the password itself never leaves the control plane.
      ...(command.password !== undefined ? { rootPasswordHash: sha512Crypt(command.password) } : {}),
      ...(command.sshPublicKeys !== undefined ? { sshPublicKeys: command.sshPublicKeys } : {}),
    };
    return this.newGuests.submit(kind, { vmid, node, config: resolved.config, lock: 'create' }, command.pool, {
      node,
      vmid,
      type: kind.tasks.create ?? 'create',
      caller,
      work: async (work) => {
        await this.newGuests.finish(kind, node, vmid, () =>
          work.agent('guest.create', { guest: spec, allocate: resolved.allocate, ...container }, CREATE_MS, {
            endsTask: !command.template && !command.start,
          }),
        );
        if (command.template) await this.templates.templateWork(guest, work);
        if (command.start) await this.power.startWork(kind, vmid, work, { endsTask: true });
      },
    });
  }
}

/** The host path of a container template `<storage>:vztmpl/<file>` (its form was checked by the parameter). */
function templatePath(ostemplate: string, node: string, storages: ReadonlyMap<string, StorageRow>): string {
  const colon = ostemplate.indexOf(':');
  return volumePath(usableStorage(storages, ostemplate.slice(0, colon), node, 'vztmpl', 'ostemplate'), ostemplate.slice(colon + 1));
}
