import { Injectable } from '@nestjs/common';
import { allows } from '@corral/acl';
import { SYSTEM_CALLER, type Principal } from '../http/principal.js';
import { permissionDenied } from '../access/auth/authorizer.js';
import { AccessState } from '../access/state/access-state.js';
import { AgentHub } from '../agents/agent-hub.js';
import { HaResourcesRepository } from '../inventory/ha/ha-resources.repository.js';
import { ApiError } from '../errors/api-error.js';
import { badParam } from '../errors/resource-errors.js';
import { NodesService } from '../nodes/nodes.service.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import { StoragesRepository } from '../inventory/storage/storages.repository.js';
import { usableStorage, volumePath } from '../storage/volumes.js';
import { linkedClonesOf } from './linked-clones.js';
import { storageMapping } from './migrate/migrate-plan.js';
import { MigrateService } from './migrate/migrate.service.js';
import { configDigest, isUnusedKey, sha512Crypt } from '@corral/pve-formats';
import { givenConfig, mayGiveKeys } from './config-given.js';
import { createChoices } from './create-options.js';
import { wireConfig } from './config-view.js';
import { existingGuest } from './existing-guest.js';
import { GuestTasks, type GuestWork } from './guest-tasks.js';
import { QEMU, type GuestKind } from './guest-kinds.js';
import { monitorCommandKind, MODIFYING_MONITOR_COMMANDS, READ_ONLY_MONITOR_COMMANDS } from './qemu/monitor-commands.js';
import type { GuestStatus } from './guest.endpoints.js';
import { guestSpec } from './guest-spec.js';
import { GuestView, type GuestState } from '../inventory/guests/guest-view.js';
import { NewGuests } from './new-guests.js';
import { GuestsRepository } from '../inventory/guests/guests.repository.js';
import { changedValue, cloneConfig, resolveNewConfig } from './new-config.js';
import { runState, statusEntry } from './status-entry.js';
import { touchesVolumes, volumePrivilege } from './volumes/volume-change.js';
import { VolumeChanges } from './volumes/volume-changes.js';
import { CloudinitService } from './cloudinit/cloudinit.service.js';

/** How long the agent may take, by kind of work. */
const CREATE_MS = 30 * 60_000;
const POWER_MS = 5 * 60_000;
const MONITOR_MS = 30_000;
/** PVE's default shutdown timeouts: a minute for VMs (its vm_stop) and containers alike. */
const SHUTDOWN_DEFAULT_S = { qemu: 60, lxc: 60 } as const;

export interface CloneOptions {
  readonly newid: number;
  readonly pool?: string;
  readonly name?: string;
  readonly description?: string;
  readonly full?: boolean;
  readonly target?: string;
  readonly storage?: string;
  readonly format?: 'qcow2' | 'raw';
}

export interface CreateRequest {
  readonly node: string;
  readonly vmid: number;
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * VMs and containers (spec 4.3, 4.4): their configuration in the database, their operations as
 * tasks on the node's agent, queued per guest (`GuestTasks`), their state rules (docs/guests.md).
 */
@Injectable()
export class GuestsService {
  constructor(
    private readonly repository: GuestsRepository,
    private readonly view: GuestView,
    private readonly tasks: GuestTasks,
    private readonly nodes: NodesService,
    private readonly storages: StoragesRepository,
    private readonly access: AccessState,
    private readonly hub: AgentHub,
    private readonly migrations: MigrateService,
    private readonly newGuests: NewGuests,
    private readonly ha: HaResourcesRepository,
    private readonly volumeChanges: VolumeChanges,
    private readonly cloudinit: CloudinitService,
  ) {}

  async list(kind: GuestKind, node: string, caller: Principal): Promise<GuestStatus[]> {
    this.nodes.existing(node);
    const access = await this.access.current();
    return this.view
      .list()
      .filter((state) => state.row.type === kind.type && state.row.node === node && allows(access, caller.subject, `/vms/${state.row.vmid}`, ['VM.Audit']))
      .sort((a, b) => a.row.vmid - b.row.vmid)
      .map(statusEntry);
  }

  async current(kind: GuestKind, node: string, vmid: number): Promise<GuestStatus> {
    const entry = statusEntry(this.existing(kind, node, vmid));
    const ha = await this.ha.find(vmid);
    return { ...entry, ha: ha === null ? { managed: 0 } : { managed: 1, state: ha.state, ...(ha.group !== null ? { group: ha.group } : {}) } };
  }

  index(kind: GuestKind, node: string, vmid: number): { subdir: string }[] {
    this.existing(kind, node, vmid);
    const own = kind.type === 'qemu' ? ['agent', 'cloudinit', 'monitor', 'move_disk', 'unlink', 'vncproxy', 'vncwebsocket'] : ['interfaces', 'move_volume'];
    return ['config', 'pending', 'status', 'template', 'snapshot', 'feature', 'clone', 'migrate', 'resize', ...own].map((subdir) => ({ subdir }));
  }

  /** The config as PVE answers it: typed values, the cloud-init password masked, the `digest` and the `lock`. */
  config(kind: GuestKind, node: string, vmid: number): Record<string, string | number> {
    const { config, lock } = this.existing(kind, node, vmid).row;
    const shown = { ...config, ...(config['cipassword'] !== undefined ? { cipassword: '**********' } : {}) };
    return { ...wireConfig(kind, shown), digest: configDigest(config), ...(lock !== null ? { lock } : {}) };
  }

  async create(kind: GuestKind, request: CreateRequest, caller: Principal): Promise<string> {
    const { node, vmid, params } = request;
    this.nodes.existing(node);
    this.hub.reachable(node);
    const choices = createChoices(params);
    const given = givenConfig(kind, params);
    // PVE takes an empty start order from clients that always send the key: none.
    if (given['startup'] === '') delete given['startup'];
    mayGiveKeys(Object.keys(given), caller);
    if (kind.type === 'lxc') given['rootfs'] ??= `${typeof params['storage'] === 'string' ? params['storage'] : 'local'}:4`;
    const storages = await this.storageMap();
    const resolved = resolveNewConfig(kind, given, { vmid, node, storages });
    await this.newGuests.mayAllocate(resolved.storages, caller);
    const ostemplate = kind.type === 'lxc' ? this.templatePath(params['ostemplate'], node, storages) : undefined;
    await this.newGuests.insert(kind, { vmid, node, config: resolved.config, lock: 'create' }, typeof params['pool'] === 'string' ? params['pool'] : undefined);
    const made = guestSpec({ vmid, type: kind.type, config: resolved.config }, storages);
    // The `pve` driver hands `pct create` the template's volume id; it is not a config key after the create.
    const spec = typeof params['ostemplate'] === 'string' ? { ...made, config: { ...made.config, ostemplate: params['ostemplate'] } } : made;
    const container = {
      ...(ostemplate !== undefined ? { ostemplate } : {}),
      ...(choices.ignoreUnpackErrors ? { ignoreUnpackErrors: true } : {}),
      // Hashed here: the password itself never leaves the control plane.
      ...(choices.rootPassword !== undefined ? { rootPasswordHash: sha512Crypt(choices.rootPassword) } : {}),
      ...(choices.sshPublicKeys !== undefined ? { sshPublicKeys: choices.sshPublicKeys } : {}),
    };
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.create ?? 'create',
      caller,
      work: async (work) => {
        await this.newGuests.finish(kind, node, vmid, () => work.agent('guest.create', { guest: spec, allocate: resolved.allocate, ...container }, CREATE_MS));
        if (choices.template) await this.templateWork(kind, node, vmid, work);
        if (choices.start) await this.startWork(kind, vmid, work);
      },
    });
  }

  /** A start; for a guest under HA, PVE's `hastart`: its requested state becomes `started`, and the HA manager starts it. */
  async start(kind: GuestKind, node: string, vmid: number, caller: Principal): Promise<string> {
    this.existing(kind, node, vmid);
    if (await this.underHa(vmid)) return this.haRequest(kind, node, vmid, 'started', caller);
    return this.tasks.submit({ node, vmid, type: kind.tasks.start ?? 'start', caller, check: () => this.mayStart(kind, node, vmid), work: (work) => this.startWork(kind, vmid, work) });
  }

  /** A hard stop; for a guest under HA, PVE's `hastop`: its requested state becomes `stopped`, then it stops. */
  async stop(kind: GuestKind, node: string, vmid: number, caller: Principal): Promise<string> {
    this.existing(kind, node, vmid);
    const work = (guest: GuestWork) => guest.agent('guest.stop', { type: kind.type, vmid }, POWER_MS);
    if (await this.underHa(vmid)) return this.haRequest(kind, node, vmid, 'stopped', caller, work);
    return this.tasks.submit({ node, vmid, type: kind.tasks.stop ?? 'stop', caller, work });
  }

  /** A clean shutdown; for a guest under HA, a `hastop` as `stop`'s that shuts it down instead. */
  async shutdown(kind: GuestKind, node: string, vmid: number, options: { timeout?: number; forceStop?: boolean }, caller: Principal): Promise<string> {
    this.existing(kind, node, vmid);
    const timeout = options.timeout ?? SHUTDOWN_DEFAULT_S[kind.type];
    const work = (guest: GuestWork) => guest.agent('guest.shutdown', { type: kind.type, vmid, timeout, forceStop: options.forceStop ?? false }, (timeout + 60) * 1000);
    if (await this.underHa(vmid)) return this.haRequest(kind, node, vmid, 'stopped', caller, work);
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.shutdown ?? 'shutdown',
      caller,
      check: () => this.mustBe(kind, node, vmid, ['running', 'paused'], 'is not running'),
      work,
    });
  }

  /**
   * What the HA resource manager runs to bring a guest to its requested state (docs/ha.md): a start
   * or a hard stop as root@pam, PVE's `qmstart`/`qmstop` tasks; resolves once done, rejects with
   * the task's error.
   */
  async haPower(kind: GuestKind, vmid: number, action: 'start' | 'stop'): Promise<void> {
    const { row } = this.existing(kind, undefined, vmid);
    const { node } = row;
    const work = action === 'start' ? (guest: GuestWork) => this.startWork(kind, vmid, guest, { ha: true }) : (guest: GuestWork) => guest.agent('guest.stop', { type: kind.type, vmid }, POWER_MS);
    const check = action === 'start' ? () => this.mayStart(kind, node, vmid) : () => this.mustBe(kind, node, vmid, ['running', 'paused'], 'is not running');
    await this.tasks.completed({ node, vmid, type: kind.tasks[action] ?? action, caller: SYSTEM_CALLER, check, work });
  }

  /**
   * PVE's `hastart`/`hastop` task: the requested state is set ("Requesting HA start for VM 100"),
   * so the HA manager does not undo what the user asked. A start is the HA manager's to make (only
   * an agent whose lease covers the guest may start it); a stop or shutdown (`action`) runs at once
   * in the guest's turn, unless the guest is stopped already.
   */
  private haRequest(kind: GuestKind, node: string, vmid: number, state: 'started' | 'stopped', caller: Principal, action?: (work: GuestWork) => Promise<void>): Promise<string> {
    return this.tasks.submit({
      node,
      vmid,
      type: state === 'started' ? 'hastart' : 'hastop',
      caller,
      work: async (work) => {
        work.line(`Requesting HA ${state === 'started' ? 'start' : 'stop'} for ${kind.noun} ${vmid}`);
        await this.ha.request(vmid, state);
        if (action === undefined) return;
        if (runState(this.existing(kind, node, vmid)) === 'stopped') return work.line(`${kind.noun} ${vmid} is already stopped`);
        await action(work);
      },
    });
  }

  async reboot(kind: GuestKind, node: string, vmid: number, options: { timeout?: number }, caller: Principal): Promise<string> {
    this.existing(kind, node, vmid);
    const timeout = options.timeout ?? SHUTDOWN_DEFAULT_S[kind.type];
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.reboot ?? 'reboot',
      caller,
      check: () => this.mustBe(kind, node, vmid, ['running'], 'is not running'),
      work: async (work) => {
        if (kind.type === 'qemu') await this.cloudinit.generate(work, vmid);
        await work.agent('guest.reboot', { guest: await this.spec(kind, node, vmid), timeout }, (timeout + 120) * 1000);
      },
    });
  }

  async reset(kind: GuestKind, node: string, vmid: number, caller: Principal): Promise<string> {
    this.existing(kind, node, vmid);
    return this.tasks.submit({ node, vmid, type: kind.tasks.reset ?? 'reset', caller, check: () => this.mustBe(kind, node, vmid, ['running', 'paused'], 'is not running'), work: (work) => work.agent('guest.reset', { vmid }, POWER_MS) });
  }

  async suspend(kind: GuestKind, node: string, vmid: number, options: { todisk?: boolean }, caller: Principal): Promise<string> {
    this.existing(kind, node, vmid);
    if (options.todisk === true) throw badParam('todisk', 'hibernating to disk is not supported by Corral yet');
    return this.tasks.submit({ node, vmid, type: kind.tasks.suspend ?? 'suspend', caller, check: () => this.mustBe(kind, node, vmid, ['running'], 'is not running'), work: (work) => work.agent('guest.suspend', { type: kind.type, vmid }, POWER_MS) });
  }

  async resume(kind: GuestKind, node: string, vmid: number, caller: Principal): Promise<string> {
    this.existing(kind, node, vmid);
    return this.tasks.submit({ node, vmid, type: kind.tasks.resume ?? 'resume', caller, check: () => this.mustBe(kind, node, vmid, ['paused'], 'is not paused'), work: (work) => work.agent('guest.resume', { type: kind.type, vmid }, POWER_MS) });
  }

  async destroy(kind: GuestKind, node: string, vmid: number, options: { force?: boolean; purge?: boolean }, caller: Principal): Promise<string> {
    this.existing(kind, node, vmid);
    // PVE's words; with purge=1 the HA resource goes with the guest (its foreign key cascades).
    if (options.purge !== true && (await this.ha.find(vmid)) !== null) throw new ApiError('IN_USE', `unable to remove ${kind.noun} ${vmid} - used in HA resources and purge parameter not set.`);
    const force = options.force === true;
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.destroy ?? 'destroy',
      caller,
      check: () => {
        const state = this.existing(kind, node, vmid);
        const { row } = state;
        if (row.config['protection'] === '1') throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is protected: set protection=0 first`);
        const clones = linkedClonesOf(vmid, this.view.list().map((state) => state.row));
        if (clones.length > 0) throw new ApiError('IN_USE', `${kind.noun} ${vmid} is the base of the linked clones ${clones.join(', ')}: destroy them first`);
        if (force) return;
        if (row.lock !== null) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is locked (${row.lock})`);
        // In PVE's words: Telmate's provider stops a container and destroys it again when the refusal ends in "is running".
        if (runState(state) !== 'stopped') throw new ApiError('GUEST_STATE', kind.type === 'lxc' ? `unable to destroy CT ${vmid} - container is running` : `VM ${vmid} is running - destroy failed`);
      },
      work: async (work) => {
        if (runState(this.existing(kind, node, vmid)) !== 'stopped') await work.agent('guest.stop', { type: kind.type, vmid }, POWER_MS);
        await work.agent('guest.destroy', { guest: await this.spec(kind, node, vmid) }, CREATE_MS);
        if (kind.type === 'qemu') await this.cloudinit.release(work, this.existing(kind, node, vmid).row);
        await this.repository.remove(vmid, { event: 'vm-delete', node });
        await this.view.reload(vmid);
      },
    });
  }

  /** Runs a monitor command of the allowed list on a running VM (no task: PVE answers with the output). */
  async monitor(node: string, vmid: number, command: string, caller: Principal): Promise<string> {
    this.existing(QEMU, node, vmid);
    const kind = monitorCommandKind(command);
    if (kind === null) throw badParam('command', `'${command}' is not a monitor command Corral runs (GET .../monitor lists them)`);
    const privilege = kind === 'read-only' ? 'Sys.Audit' : 'Sys.Modify';
    if (!allows(await this.access.current(), caller.subject, `/vms/${vmid}`, [privilege])) throw permissionDenied({ path: `/vms/${vmid}`, privileges: [privilege] });
    this.hub.reachable(node);
    this.mustBe(QEMU, node, vmid, ['running', 'paused'], 'is not running');
    return this.hub.request(node, 'guest.monitor', { vmid, command: command.trim().replace(/\s+/g, ' ') }, { timeoutMs: MONITOR_MS });
  }

  monitorCommands(node: string, vmid: number): { command: string; privilege: 'Sys.Audit' | 'Sys.Modify' }[] {
    this.existing(QEMU, node, vmid);
    return [
      ...READ_ONLY_MONITOR_COMMANDS.map((command) => ({ command, privilege: 'Sys.Audit' as const })),
      ...MODIFYING_MONITOR_COMMANDS.map((command) => ({ command, privilege: 'Sys.Modify' as const })),
    ];
  }

  /**
   * A full clone (PVE's `.../clone`): the new guest is inserted at once, locked `clone` (a taken
   * `newid` is a 409, as a create's), its volumes copied by the agent, then unlocked with its
   * `vm-create` event; a failed copy removes it again. The source must be stopped or a template.
   */
  async clone(kind: GuestKind, node: string, vmid: number, options: CloneOptions, caller: Principal): Promise<string> {
    const source = this.existing(kind, node, vmid);
    const template = source.row.config['template'] === '1';
    // PVE's default: a linked clone of a template, a full clone of anything else.
    const linked = options.full === undefined ? template && kind.type === 'qemu' : !options.full;
    if (linked && kind.type === 'lxc') throw badParam('full', 'linked clones of containers need a storage with snapshots, and directory storages have none: clone with full=1');
    if (linked && !template) throw badParam('full', `linked clones are made of templates, and ${kind.noun} ${vmid} is none: clone with full=1`);
    if (linked && options.storage !== undefined) throw badParam('storage', 'a linked clone stays on the storage of its template: give storage only with full=1');
    const target = options.target ?? node;
    if (target !== node) {
      if (kind.type === 'lxc') throw badParam('target', 'containers cannot move between nodes yet: clone on the same node');
      if (linked) throw badParam('target', 'a linked clone stays on the node of its template: clone with full=1 to another node');
      this.nodes.existing(target);
      this.hub.reachable(target);
    }
    this.hub.reachable(node);
    const check = () => {
      if (this.existing(kind, node, vmid).row.config['template'] !== '1') this.mustBe(kind, node, vmid, ['stopped'], 'is running: clone it once it is stopped');
    };
    // Before the new guest exists: a refusal must leave nothing behind.
    if (!this.tasks.busy(vmid)) check();
    const storages = await this.storageMap();
    const { newid, name, storage, format } = options;
    const resolved = cloneConfig(kind, source.row.config, { vmid: newid, node, storages, linked, ...(name !== undefined ? { name } : {}), ...(storage !== undefined ? { storage } : {}), ...(format !== undefined ? { format } : {}) });
    await this.newGuests.mayAllocate(resolved.storages, caller);
    // A clone copies the current state only: it has none of the source's snapshots, so no `parent`.
    const { parent: _parent, ...cloned } = resolved.config;
    const config = options.description === undefined ? cloned : { ...cloned, description: options.description };
    await this.newGuests.insert(kind, { vmid: newid, node, config, lock: 'clone' }, options.pool);
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.clone ?? 'clone',
      caller,
      check,
      work: async (work) => {
        const copy = guestSpec({ vmid: newid, type: kind.type, config }, storages);
        await this.newGuests.finish(kind, node, newid, () => work.agent('guest.clone', { source: guestSpec(this.existing(kind, node, vmid).row, storages), target: copy }, CREATE_MS));
        // PVE's clone to another node: made here, then moved there (offline: the new VM is stopped).
        if (target !== node) await this.migrations.move(work, { node, vmid: newid, target }, storages, storageMapping({}));
      },
    });
  }

  /**
   * Turns a stopped guest into a template: its volumes become bases, it can no longer start. A VM's
   * answer is the task; a container's (PVE answers null) comes when the task is done.
   */
  async template(kind: GuestKind, node: string, vmid: number, caller: Principal): Promise<string>;
  async template(kind: GuestKind, node: string, vmid: number, caller: Principal, options: { wait: true }): Promise<void>;
  async template(kind: GuestKind, node: string, vmid: number, caller: Principal, options?: { wait: true }): Promise<string | void> {
    this.existing(kind, node, vmid);
    const run = options?.wait ? this.tasks.completed.bind(this.tasks) : this.tasks.submit.bind(this.tasks);
    return run({
      node,
      vmid,
      type: kind.tasks.template ?? 'template',
      caller,
      check: () => {
        if (this.existing(kind, node, vmid).row.config['template'] === '1') throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is already a template`);
        this.mustBe(kind, node, vmid, ['stopped'], 'is running: templates are made of stopped guests');
      },
      work: (work) => this.templateWork(kind, node, vmid, work),
    });
  }

  /** Makes the guest's volumes bases and marks it a template. */
  private async templateWork(kind: GuestKind, node: string, vmid: number, work: GuestWork): Promise<void> {
    await work.agent('guest.template', { guest: await this.spec(kind, node, vmid) }, CREATE_MS);
    await this.repository.update(vmid, async (row) => ({ config: { ...row.config, template: '1' } }));
    await this.view.reload(vmid);
  }

  /**
   * Changes the config at once (PUT): the keys given, `delete`d ones removed, refused (409) when
   * `digest` is not the current config's. A running guest gets the change at its next start.
   */
  async setConfig(kind: GuestKind, node: string, vmid: number, params: Readonly<Record<string, unknown>>, caller: Principal): Promise<null> {
    this.existing(kind, node, vmid);
    const change = await this.plannedChange(kind, vmid, params, caller);
    if (touchesVolumes(kind, change)) return this.volumeChanges.now(kind, node, vmid, change, { caller, digest: params['digest'] });
    await this.applyChange(kind, vmid, change, params['digest']);
    return null;
  }

  /** `POST .../config`: the same change, answered with a task as PVE's async variant. */
  async setConfigAsync(kind: GuestKind, node: string, vmid: number, params: Readonly<Record<string, unknown>>, caller: Principal): Promise<string> {
    this.existing(kind, node, vmid);
    const change = await this.plannedChange(kind, vmid, params, caller);
    this.hub.reachable(node);
    if (touchesVolumes(kind, change)) return this.volumeChanges.asTask(kind, node, vmid, change, { caller, digest: params['digest'] });
    await this.applyChange(kind, vmid, change, params['digest']);
    return this.tasks.submit({ node, vmid, type: kind.tasks.config ?? 'config', caller, work: async (work) => work.line('configuration updated') });
  }

  /** The keys to set and to delete, each allowed to the caller (PVE's privilege per key). */
  private async plannedChange(kind: GuestKind, vmid: number, params: Readonly<Record<string, unknown>>, caller: Principal): Promise<{ set: Record<string, string>; deleted: string[] }> {
    const set = givenConfig(kind, params);
    const deleted = ((params['delete'] as string[] | undefined) ?? []).flatMap((entry) => entry.split(/[,;\s]+/)).filter((key) => key !== '');
    // An empty start order is none, as on create.
    if (set['startup'] === '') {
      delete set['startup'];
      if (!deleted.includes('startup')) deleted.push('startup');
    }
    mayGiveKeys([...Object.keys(set), ...deleted], caller);
    const access = await this.access.current();
    const { config } = this.existing(kind, undefined, vmid).row;
    for (const key of [...Object.keys(set), ...deleted]) {
      if (!(key in kind.keys) && !isUnusedKey(key)) throw badParam('delete', `'${key}' is not a config key Corral knows`);
      const privilege = kind.isVolumeKey(key) || isUnusedKey(key) ? volumePrivilege(kind, set[key] ?? config[key]) : kind.privilegeOf(key);
      if (!allows(access, caller.subject, `/vms/${vmid}`, [privilege])) throw permissionDenied({ path: `/vms/${vmid}`, privileges: [privilege] });
      if (key in set && deleted.includes(key)) throw badParam('delete', `'${key}' is both set and deleted`);
    }
    return { set, deleted };
  }

  private async applyChange(kind: GuestKind, vmid: number, change: { set: Record<string, string>; deleted: string[] }, digest: unknown): Promise<void> {
    await this.repository.update(vmid, async (row) => {
      if (row.lock !== null) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is locked (${row.lock})`);
      if (typeof digest === 'string' && digest !== configDigest(row.config)) {
        throw new ApiError('CONFIG_CHANGED', `the configuration of ${kind.noun} ${vmid} has changed since digest ${digest}: read it again`);
      }
      const config = { ...row.config };
      // A card without a MAC address keeps the one of the card it replaces, or gets a new one: it must have one to start.
      for (const [key, value] of Object.entries(change.set)) config[key] = changedValue(kind, key, value, row.config[key]);
      for (const key of change.deleted) delete config[key];
      return { config };
    });
    await this.view.reload(vmid);
  }

  /** Whether HA keeps the guest in a state (a resource, not `ignored`): its power actions are then HA requests (docs/ha.md). */
  private async underHa(vmid: number): Promise<boolean> {
    const resource = await this.ha.find(vmid);
    return resource !== null && resource.state !== 'ignored';
  }

  private async storageMap(): Promise<Map<string, StorageRow>> {
    return new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
  }

  /** Starts the guest on its node; `ha`: as the HA manager, which the agent allows only under an HA lease covering the guest. */
  private async startWork(kind: GuestKind, vmid: number, work: GuestWork, options: { ha?: true } = {}): Promise<void> {
    const { row } = this.existing(kind, undefined, vmid);
    // As PVE's start: the cloud-init drive is generated from the config first.
    if (kind.type === 'qemu') await this.cloudinit.generate(work, vmid);
    await work.agent('guest.start', { guest: await this.spec(kind, row.node, vmid), ...options }, POWER_MS);
  }

  private mayStart(kind: GuestKind, node: string, vmid: number): void {
    const state = this.existing(kind, node, vmid);
    if (state.row.config['template'] === '1') throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is a template: templates cannot start (clone it)`);
    this.mustBe(kind, node, vmid, ['stopped'], 'is already running');
  }

  private mustBe(kind: GuestKind, node: string, vmid: number, states: readonly ReturnType<typeof runState>[], problem: string): void {
    const state = this.existing(kind, node, vmid);
    if (state.row.lock !== null) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is locked (${state.row.lock})`);
    if (!states.includes(runState(state))) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} ${problem}`);
  }

  private async spec(kind: GuestKind, node: string, vmid: number) {
    return guestSpec(this.existing(kind, node, vmid).row, await this.storageMap());
  }

  /** The guest, or 404: unknown, another kind, or on another node (`undefined`: any node). */
  private existing(kind: GuestKind, node: string | undefined, vmid: number): GuestState {
    return existingGuest(this.view, kind, node, vmid);
  }

  /** The host path of a container template `<storage>:vztmpl/<file>` (its form was checked by the parameter). */
  private templatePath(ostemplate: unknown, node: string, storages: ReadonlyMap<string, StorageRow>): string {
    const text = String(ostemplate);
    const colon = text.indexOf(':');
    return volumePath(usableStorage(storages, text.slice(0, colon), node, 'vztmpl', 'ostemplate'), text.slice(colon + 1));
  }
}

