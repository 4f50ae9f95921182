import type { BackupMode, ContainerInterface, GuestRuntime, GuestSpec, GuestType, GuestVolume, ParamsOf, ResultOf } from '@corral/protocol';
import type { Socket } from 'node:net';
import type { CommandContext } from '../command-context.js';
import { CommandFailure } from '../../host/command-failure.js';
import { requireActive } from '../storage-location.js';
import type { Host } from '../../host/host.js';
import type { GuestTraffic } from '../../host/guest-traffic.js';
import { archivedVolumes, excludedMountPoints, refuseUnrestorable } from '../archive-contents.js';
import { captureLog, newBackupFile, readBackupConfig, writeBackupSidecars } from '../backup-archive.js';
import { afterwards, backupMode, MODE_STEPS, pausedMode } from '../backup-modes.js';
import type { GuestBackups } from '../guest-backups.js';
import type { GuestDriver } from '../guest-driver.js';
import type { GuestMigration } from '../guest-migration.js';
import type { VolumeOperations } from '../volume-operations.js';
import { snapshotVolumes, type GuestSnapshots } from '../guest-snapshots.js';
import {
  agentShutdownAsked,
  alreadyRunning,
  containerExists,
  containersHaveNo,
  copyingToNode,
  existsOnTarget,
  extractingArchive,
  guestLabel,
  isTemplate,
  madeReadOnly,
  notRunning,
  pausedVmCannotShutDown,
  refusedWhileRunning,
  removingVolume,
  resizedVolume,
  resumingPausedContainer,
  runningNeedsOnline,
  shutdownTimedOut,
  snapshotLine,
  snapshotMissing,
  snapshotNameUsed,
  stoppingAfterTimeout,
  stoppingPausedVm,
  volumeExists,
  type StoppedOnlyOperation,
} from '../guest-messages.js';
import { ownVolumes, volumeOf } from '../guest-volumes.js';
import { writeSimulatedArchive } from './sim-archive.js';
import { SimGuests } from './sim-guests.js';
import { readSimState, SimStateWriter, simStatePath, type SimGuest, type SimState } from './sim-state.js';
import { backupTime, createTime, DEFAULT_SIM_TIMING, restoreTime, type SimTiming } from './sim-timing.js';
import { madeVolumeLine } from './sim-words.js';
import { SimGuestAgent, simulatedAgent } from './sim-guest-agent.js';

export interface SimOptions {
  /** The agent's state directory: the simulated guests are kept in a file there. */
  readonly stateDir: string;
  /** Multiplies every duration of `timing`: 1 is realistic, 0 instant (benchmarks), 10 slow motion. */
  readonly speed: number;
  readonly timing?: Partial<SimTiming>;
}

const MIB = 1024 ** 2;
/** The QEMU version the simulated monitor reports. */
const QEMU_VERSION = '7.2.0';

/**
 * The `sim` driver: simulated guests, for development, demos and scale tests. It starts no process
 * and touches no volume: guests live in memory (and in `sim-guests.json` in the agent's state
 * directory, so a restarted agent still knows the ones that run), their operations take realistic
 * times (`SimTiming` times `speed`), and `list()` makes up plausible figures (a stable pid, a
 * growing uptime, some memory and a little CPU). It refuses what the native driver refuses, with its
 * messages and task log lines, so the control plane's handling of them is exercised too. It is a simulator, never a stand-in: nothing it reports
 * exists, and the agent says at start that it runs it.
 *
 * Backups are the one thing it writes: a real archive in the storage's `dump/` (with its log and
 * notes) holding the guest's config and a file `SIMULATED` saying that the sim driver wrote it and
 * that it holds no disk contents (sim-archive.ts), so that storage content lists, prunes and
 * restores work on them at scale. A restore reads the archive's config and takes the guest's
 * volumes as a create does; it fills nothing.
 */
export class SimDriver implements GuestDriver {
  readonly name = 'sim';
  private readonly timing: SimTiming;
  private readonly guests = new SimGuests();
  private nextPid = 0;
  private loaded: Promise<void> | undefined;
  private readonly writer: SimStateWriter;
  private readonly agents = new SimGuestAgent();
  /** The target leaves the guest to the source until finish: nothing is received, so there is nothing to undo. */
  readonly migration: GuestMigration = {
    receive: (params, context) => this.receiveMigration(params, context),
    send: (params, context) => this.sendMigration(params, context),
    finish: (params) => this.finishMigration(params),
    abort: async () => undefined,
  };
  /** Snapshots are names on the guest's record: what the native driver refuses is refused, nothing is copied. */
  readonly snapshots: GuestSnapshots = {
    create: (params, context) => this.createSnapshot(params, context),
    rollback: (params, context) => this.rollbackSnapshot(params, context),
    delete: (params, context) => this.deleteSnapshot(params, context),
  };
  readonly backups: GuestBackups = {
    backup: (params, context) => this.backupGuest(params, context),
    config: async ({ storage, file }, context) => readBackupConfig(await requireActive(this.host, storage), file, context.signal),
    restore: (params, context) => this.restoreGuest(params, context),
  };
  /** Volumes are volume ids the guests hold: made, removed and moved as the native driver would, refused where it refuses. */
  readonly volumes: VolumeOperations = {
    allocate: (params, context) => this.allocateVolumes(params, context),
    free: (params) => this.freeVolumes(params),
    resize: async ({ type, vmid, volume, size }, context) =>
      context.log(resizedVolume(volume, size, (await this.known(type, vmid)).status !== 'stopped')),
    move: (params, context) => this.moveVolume(params, context),
  };

  constructor(
    private readonly host: Host,
    private readonly options: SimOptions,
  ) {
    this.timing = { ...DEFAULT_SIM_TIMING, ...options.timing };
    this.writer = new SimStateWriter(simStatePath(options.stateDir), () => this.snapshot());
  }

  async create({ guest, allocate, ostemplate }: ParamsOf<'guest.create'>, context: CommandContext): Promise<void> {
    await this.load();
    const made = guest.volumes.filter((volume) => allocate.includes(volume.key) || (ostemplate !== undefined && volume.key === 'rootfs'));
    // Checked again after the wait: a parallel create may have taken the guest or a volume meanwhile.
    this.refuseTaken(guest, made);
    await this.pause(createTime(this.timing, guest, allocate), context);
    this.refuseTaken(guest, made);
    for (const volume of made) logLine(context, madeVolumeLine(guest.type, volume, undefined));
    if (ostemplate !== undefined) context.log(extractingArchive(ostemplate));
    this.guests.set({ ...describe(guest), status: 'stopped', volids: guest.volumes.map((volume) => volume.volid) });
    await this.writer.save();
  }

  async start(guest: GuestSpec, context: CommandContext): Promise<void> {
    await this.load();
    if (guest.template) throw new Error(isTemplate(guest.type, guest.vmid));
    const known = this.guests.get(guest.vmid);
    if (known !== undefined && known.status !== 'stopped') throw new Error(alreadyRunning(guest.type, guest.vmid));
    if (guest.type === 'qemu')
      context.log(`qemu-system-x86_64 -name ${guest.name} -m ${guest.memoryMiB} -smp ${guest.cores * guest.sockets} (simulated)`);
    await this.pause(this.timing.startMs, context);
    this.run({ ...describe(guest), ...simulatedAgent(guest), volids: known?.volids ?? guest.volumes.map((volume) => volume.volid) });
    await this.writer.save();
  }

  async stop(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    const guest = await this.find(type, vmid);
    if (guest === undefined || guest.status === 'stopped') return logNotRunning(type, vmid, context);
    await this.pause(this.timing.stopMs, context);
    this.halt(guest);
    await this.writer.save();
  }

  /** A stop without the simulated time it takes. */
  async kill(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    const guest = await this.find(type, vmid);
    if (guest === undefined || guest.status === 'stopped') return logNotRunning(type, vmid, context);
    this.halt(guest);
    await this.writer.save();
  }

  /**
   * None: a simulated guest is a record in this agent's state file, not a process, and the state
   * file is the running agent's to write. The fence watchdog does not cover the sim driver.
   */
  async fenceOrder(): Promise<undefined> {
    return undefined;
  }

  async shutdown({ type, vmid, timeout, forceStop }: ParamsOf<'guest.shutdown'>, context: CommandContext): Promise<void> {
    const guest = await this.find(type, vmid);
    if (guest === undefined || guest.status === 'stopped') return logNotRunning(type, vmid, context);
    await this.shutDown(guest, timeout, forceStop, context);
    await this.writer.save();
  }

  /** As the native driver: a VM must be running, a stopped container is simply started. */
  async reboot({ guest: spec, timeout }: ParamsOf<'guest.reboot'>, context: CommandContext): Promise<void> {
    const guest = spec.type === 'qemu' ? await this.running('qemu', spec.vmid) : await this.find('lxc', spec.vmid);
    if (guest !== undefined && guest.status !== 'stopped') {
      await this.shutDown(guest, timeout, true, context);
      await this.writer.save();
    }
    await this.start(spec, context);
  }

  async reset(vmid: number, context: CommandContext): Promise<void> {
    await this.runningVm(vmid, 'reset');
    await this.pause(this.timing.resetMs, context);
  }

  /** Pausing a paused guest (or resuming a running one) does nothing, as in PVE. */
  async suspend(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    const guest = await this.running(type, vmid);
    if (guest.status === 'paused') return;
    await this.pause(this.timing.suspendMs, context);
    guest.status = 'paused';
    await this.writer.save();
  }

  async resume(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    const guest = await this.running(type, vmid);
    if (guest.status === 'running') return;
    await this.pause(this.timing.resumeMs, context);
    guest.status = 'running';
    await this.writer.save();
  }

  async destroy(spec: GuestSpec, context: CommandContext): Promise<void> {
    await this.refuseRunning(spec.type, spec.vmid, 'destroy');
    await this.pause(this.timing.destroyMs, context);
    for (const volume of ownVolumes(spec)) context.log(removingVolume(spec.type, volume));
    this.guests.delete(spec.vmid);
    await this.writer.save();
  }

  async clone({ source, target }: ParamsOf<'guest.clone'>, context: CommandContext): Promise<void> {
    await this.refuseRunning(source.type, source.vmid, 'clone');
    const made = ownVolumes(target);
    this.refuseTaken(target, made);
    await this.pause(this.timing.cloneMs, context);
    this.refuseTaken(target, made);
    for (const volume of made)
      logLine(
        context,
        madeVolumeLine(
          target.type,
          volume,
          source.volumes.find((from) => from.key === volume.key),
        ),
      );
    this.guests.set({ ...describe(target), status: 'stopped', volids: target.volumes.map((volume) => volume.volid) });
    await this.writer.save();
  }

  async template(spec: GuestSpec, context: CommandContext): Promise<void> {
    await this.refuseRunning(spec.type, spec.vmid, 'template');
    await this.pause(this.timing.templateMs, context);
    if (spec.type === 'qemu') for (const volume of ownVolumes(spec)) context.log(madeReadOnly(volume));
    this.guests.set({
      ...describe(spec),
      template: true,
      status: 'stopped',
      volids: spec.volumes.map((volume) => volume.volid),
    });
    await this.writer.save();
  }

  /** Simulated: the drive is not written; the VM must exist, and the log says what would be written. */
  async writeCloudinit({ vmid, volume, label, files }: ParamsOf<'guest.cloudinit.write'>, context: CommandContext): Promise<void> {
    if ((await this.find('qemu', vmid)) === undefined) throw new Error(`VM ${vmid} does not exist on this node`);
    context.log(`generating cloud-init ISO (${label}) for ${volume.key}: ${files.map((file) => file.path).join(', ')} (simulated)`);
  }

  async monitor(vmid: number, command: string, context: CommandContext): Promise<string> {
    const guest = await this.runningVm(vmid, 'monitor');
    await this.pause(this.timing.monitorMs, context);
    const words = command.trim().split(/\s+/).join(' ');
    if (words === 'info status') return `VM status: ${guest.status}\r\n`;
    if (words === 'info version') return `${QEMU_VERSION}\r\n`;
    if (words === 'info name') return `${guest.name}\r\n`;
    return `unknown command: '${words}' (the simulator answers info status, info version and info name)\r\n`;
  }

  async guestAgent({ vmid, ...command }: ParamsOf<'guest.agent'>, context: CommandContext): Promise<unknown> {
    const guest = await this.runningVm(vmid, 'QEMU guest agent');
    await this.pause(this.timing.monitorMs, context);
    const answer = this.agents.answer(guest, command);
    if (command.command === 'guest-shutdown') {
      await this.pause(this.timing.shutdownMs, context);
      this.halt(guest);
      await this.writer.save();
    }
    return answer;
  }

  /** A simulated container's interfaces: its loopback (the simulator keeps no addresses of its cards). */
  async containerInterfaces(vmid: number): Promise<ContainerInterface[]> {
    await this.running('lxc', vmid);
    return [
      {
        name: 'lo',
        hwaddr: '00:00:00:00:00:00',
        addresses: [
          { family: 'inet', address: '127.0.0.1', prefix: 8 },
          { family: 'inet6', address: '::1', prefix: 128 },
        ],
      },
    ];
  }

  /** A simulated VM has no display to show. */
  async vnc(): Promise<Socket> {
    throw new CommandFailure('unavailable', 'VNC is not available with the sim driver');
  }

  private async receiveMigration(
    { guest, copy, online }: ParamsOf<'guest.migrate.receive'>,
    context: CommandContext,
  ): Promise<ResultOf<'guest.migrate.receive'>> {
    if ((await this.find(guest.type, guest.vmid)) !== undefined) throw new Error(existsOnTarget(guest.type, guest.vmid));
    this.refuseTaken(
      guest,
      guest.volumes.filter((volume) => copy.includes(volume.key)),
    );
    await this.pause(online ? this.timing.startMs : 0, context);
    return online ? { nbdPort: 0, migrationPort: 0 } : { nbdPort: 0 };
  }

  private async sendMigration(
    { guest: spec, copy, online, target }: ParamsOf<'guest.migrate.send'>,
    context: CommandContext,
  ): Promise<ResultOf<'guest.migrate.send'>> {
    const guest = await this.find(spec.type, spec.vmid);
    const state = guest?.status ?? 'stopped';
    if (online && state === 'stopped') throw new Error(notRunning(spec.type, spec.vmid));
    if (!online && state !== 'stopped') throw new Error(runningNeedsOnline(spec.type, spec.vmid));
    for (const key of copy) context.log(copyingToNode(volumeOf(spec, key), target.node));
    await this.pause(this.timing.migrateMs, context);
    if (online) context.log('migration completed (simulated)');
    this.guests.delete(spec.vmid);
    await this.writer.save();
    return { state };
  }

  private async finishMigration({ guest, state }: ParamsOf<'guest.migrate.finish'>): Promise<void> {
    await this.load();
    const arrived = { ...describe(guest), volids: guest.volumes.map((volume) => volume.volid) };
    if (state === 'stopped') this.guests.set({ ...arrived, status: 'stopped' });
    else this.run(arrived, state);
    await this.writer.save();
  }

  /** As the native driver: a running container's `snapshot` is a `suspend`, and a guest paused or stopped for the copy runs again after it. */
  private async backupGuest(
    { guest: spec, config, mode, compress, storage, notes }: ParamsOf<'guest.backup'>,
    request: CommandContext,
  ): Promise<ResultOf<'guest.backup'>> {
    const { context, lines } = captureLog(request);
    const storagePath = await requireActive(this.host, storage);
    const guest = await this.find(spec.type, spec.vmid);
    const used = backupMode(
      spec.type,
      pausedMode(mode, guest?.status === 'paused'),
      guest !== undefined && guest.status !== 'stopped',
      context.log,
    );
    if (spec.type === 'lxc') {
      context.log("INFO: including mount point rootfs ('/') in backup");
      for (const line of excludedMountPoints(spec)) context.log(line);
    }
    const file = await newBackupFile(storagePath, spec.type, spec.vmid, compress, context.signal);
    const size = await this.quiesced(guest, used, context, async () => {
      context.log(`INFO: creating vzdump archive '${storage.path}/${file}'`);
      await this.pause(backupTime(this.timing, spec, archivedVolumes(spec)), context);
      return writeSimulatedArchive(storagePath, file, spec.type, config, compress, context.signal);
    });
    await writeBackupSidecars(storagePath, file, { log: lines, notes });
    return { file, size, mode: used };
  }

  /** Runs `work` with a running guest paused (`suspend`) or stopped (`stop`), and runs it again after, whatever the outcome. */
  private async quiesced<T>(guest: SimGuest | undefined, mode: BackupMode, context: CommandContext, work: () => Promise<T>): Promise<T> {
    if (guest === undefined || guest.status === 'stopped' || mode === 'snapshot' || (mode === 'suspend' && guest.status === 'paused'))
      return work();
    if (mode === 'suspend') {
      context.log(MODE_STEPS.suspending);
      await this.pause(this.timing.suspendMs, context);
      guest.status = 'paused';
      await this.writer.save();
      return afterwards(work(), context.log, async () => {
        context.log(MODE_STEPS.resuming);
        guest.status = 'running';
        await this.writer.save();
      });
    }
    context.log(MODE_STEPS.stopping);
    const stopped = async () => {
      await this.pause(this.timing.shutdownMs, context);
      this.halt(guest);
      await this.writer.save();
      return work();
    };
    return afterwards(stopped(), context.log, async () => {
      if (this.guests.get(guest.vmid)?.status !== 'stopped') return;
      context.log(MODE_STEPS.restarting);
      this.run(guest);
      await this.writer.save();
    });
  }

  /** Takes the guest's volumes as a create does, once the archive's config has been read: nothing is filled. */
  private async restoreGuest({ guest, storage, file, restore }: ParamsOf<'guest.restore'>, context: CommandContext): Promise<void> {
    refuseUnrestorable(guest, file, restore);
    await readBackupConfig(await requireActive(this.host, storage), file, context.signal);
    await this.load();
    const made = guest.volumes.filter((volume) => restore.includes(volume.key));
    // Checked again after the wait, as in create.
    this.refuseTaken(guest, made);
    if (guest.type === 'lxc' && restore.includes('rootfs')) context.log(extractingArchive(`${storage.path}/${file}`));
    await this.pause(restoreTime(this.timing, guest, restore), context);
    this.refuseTaken(guest, made);
    this.guests.set({ ...describe(guest), status: 'stopped', volids: guest.volumes.map((volume) => volume.volid) });
    await this.writer.save();
  }

  async list(): Promise<GuestRuntime[]> {
    await this.load();
    const now = Date.now();
    return [...this.guests.values()].map((guest) => {
      if (guest.status === 'stopped' || guest.pid === undefined)
        return { vmid: guest.vmid, type: guest.type, status: 'stopped', uptime: 0, cpu: 0, mem: 0 };
      const uptime = Math.max(0, Math.floor((now - (guest.startedAt ?? now)) / 1000));
      return {
        vmid: guest.vmid,
        type: guest.type,
        status: guest.status,
        pid: guest.pid,
        uptime,
        cpu: guest.status === 'running' ? 0.002 + Math.random() * 0.03 : 0,
        mem: Math.round(guest.memoryMiB * MIB * memoryShare(guest.vmid)),
        ...simulatedTraffic(guest.vmid, uptime),
      };
    });
  }

  private async allocateVolumes({ type, vmid, volumes }: ParamsOf<'guest.volume.allocate'>, context: CommandContext): Promise<void> {
    await this.known(type, vmid);
    this.refuseTakenVolumes(type, vmid, volumes);
    for (const volume of volumes) logLine(context, madeVolumeLine(type, volume, undefined));
    this.changeVolumes(vmid, (volids) => [...volids, ...volumes.map((volume) => volume.volid)]);
    await this.writer.save();
  }

  private async freeVolumes({ type, vmid, volumes }: ParamsOf<'guest.volume.free'>): Promise<void> {
    await this.known(type, vmid);
    const gone = new Set(volumes.map((volume) => volume.volid));
    this.changeVolumes(vmid, (volids) => volids.filter((volid) => !gone.has(volid)));
    await this.writer.save();
  }

  private async moveVolume(
    { type, vmid, source, target, targetVmid, delete: remove }: ParamsOf<'guest.volume.move'>,
    context: CommandContext,
  ): Promise<void> {
    const guest = await this.known(type, vmid);
    await this.known(type, targetVmid);
    if (guest.status !== 'stopped') throw new CommandFailure('invalid-params', refusedWhileRunning(type, vmid, 'move'));
    this.refuseTakenVolumes(type, targetVmid, [target]);
    await this.pause(this.timing.cloneMs, context);
    logLine(context, madeVolumeLine(type, target, source));
    this.changeVolumes(targetVmid, (volids) => [...volids, target.volid]);
    if (remove) this.changeVolumes(vmid, (volids) => volids.filter((volid) => volid !== source.volid));
    await this.writer.save();
  }

  /** Replaces the volume ids of guest `vmid`, one the simulator knows. */
  private changeVolumes(vmid: number, change: (volids: readonly string[]) => string[]): void {
    const guest = this.guests.get(vmid);
    if (guest !== undefined) this.guests.set({ ...guest, volids: change(guest.volids) });
  }

  /** A guest this simulator made: volumes change only on those. */
  private async known(type: GuestType, vmid: number): Promise<SimGuest> {
    const guest = await this.find(type, vmid);
    if (guest === undefined)
      throw new CommandFailure('invalid-params', `${type === 'qemu' ? 'VM' : 'CT'} ${vmid} does not exist on this host`);
    return guest;
  }

  private refuseTakenVolumes(type: GuestType, vmid: number, volumes: readonly GuestVolume[]): void {
    const volume = volumes.find((candidate) => this.guests.holds(candidate.volid));
    if (volume !== undefined) throw new Error(volumeExists(type, vmid, volume));
  }

  private async createSnapshot(
    { guest: spec, snapname, vmstate }: ParamsOf<'guest.snapshot.create'>,
    context: CommandContext,
  ): Promise<void> {
    const volumes = snapshotVolumes(spec);
    const guest = await this.recorded(spec);
    const [first] = volumes;
    if (first !== undefined && guest.snapshots?.includes(snapname) === true) throw new Error(snapshotNameUsed(snapname, first));
    await this.pause(this.timing.snapshotMs, context);
    if (vmstate && guest.status !== 'stopped') context.log(`saving the state of ${guestLabel(spec.type, spec.vmid)} (simulated)`);
    for (const volume of volumes) context.log(snapshotLine('created', snapname, volume));
    this.guests.set({ ...guest, snapshots: [...(guest.snapshots ?? []), snapname] });
    await this.writer.save();
  }

  private async rollbackSnapshot(
    { guest: spec, snapname, vmstate, start }: ParamsOf<'guest.snapshot.rollback'>,
    context: CommandContext,
  ): Promise<void> {
    await this.refuseRunning(spec.type, spec.vmid, 'rollback');
    const volumes = snapshotVolumes(spec);
    const guest = await this.recorded(spec);
    const [first] = volumes;
    if (first !== undefined && guest.snapshots?.includes(snapname) !== true) throw new Error(snapshotMissing(snapname, first));
    await this.pause(this.timing.snapshotMs, context);
    for (const volume of volumes) context.log(snapshotLine('rolled back to', snapname, volume));
    if (vmstate || start) this.run({ ...guest, ...describe(spec) });
    await this.writer.save();
  }

  private async deleteSnapshot({ guest: spec, snapname }: ParamsOf<'guest.snapshot.delete'>, context: CommandContext): Promise<void> {
    const guest = await this.recorded(spec);
    await this.pause(this.timing.snapshotMs, context);
    if (guest.snapshots?.includes(snapname) === true)
      for (const volume of snapshotVolumes(spec)) context.log(snapshotLine('deleted', snapname, volume));
    this.guests.set({ ...guest, snapshots: (guest.snapshots ?? []).filter((name) => name !== snapname) });
    await this.writer.save();
  }

  /** The guest's record, made for one the simulator has not seen (a guest of a control plane older than its state). */
  private async recorded(spec: GuestSpec): Promise<SimGuest> {
    return (
      (await this.find(spec.type, spec.vmid)) ?? {
        ...describe(spec),
        status: 'stopped',
        volids: spec.volumes.map((volume) => volume.volid),
      }
    );
  }

  /** Reads the saved state once, before the first operation. */
  private load(): Promise<void> {
    this.loaded ??= readSimState(simStatePath(this.options.stateDir)).then((state) => {
      for (const guest of state.guests) this.guests.set(guest);
      this.nextPid = state.nextPid;
    });
    return this.loaded;
  }

  private snapshot(): SimState {
    return { guests: [...this.guests.values()], nextPid: this.nextPid };
  }

  /** The guest of that type the simulator knows, if any (a guest it never saw is a stopped one). */
  private async find(type: GuestType, vmid: number): Promise<SimGuest | undefined> {
    await this.load();
    const guest = this.guests.get(vmid);
    return guest?.type === type ? guest : undefined;
  }

  /** The guest, which must be running or paused. */
  private async running(type: GuestType, vmid: number): Promise<SimGuest> {
    const guest = await this.find(type, vmid);
    if (guest === undefined || guest.status === 'stopped') throw new Error(notRunning(type, vmid));
    return guest;
  }

  /** For the operations that name no guest type. */
  private async runningVm(vmid: number, what: 'reset' | 'monitor' | 'QEMU guest agent'): Promise<SimGuest> {
    if ((await this.find('lxc', vmid)) !== undefined) throw containersHaveNo(what, vmid);
    return this.running('qemu', vmid);
  }

  private async refuseRunning(type: GuestType, vmid: number, operation: StoppedOnlyOperation): Promise<void> {
    const guest = await this.find(type, vmid);
    if (guest !== undefined && guest.status !== 'stopped') throw new Error(refusedWhileRunning(type, vmid, operation));
  }

  /** A container that exists, or a volume another guest holds, as the native driver finds them on disk. */
  private refuseTaken(guest: GuestSpec, volumes: readonly GuestVolume[]): void {
    if (guest.type === 'lxc' && this.guests.get(guest.vmid)?.type === 'lxc') throw new Error(containerExists(guest.vmid));
    this.refuseTakenVolumes(guest.type, guest.vmid, volumes);
  }

  /**
   * A running guest's shutdown takes `shutdownMs`; when that is longer than the timeout, the guest
   * is stopped if `forceStop`, else it still runs. A paused VM cannot hear the power button; a
   * paused container is thawed first.
   */
  private async shutDown(guest: SimGuest, timeoutS: number, forceStop: boolean, context: CommandContext): Promise<void> {
    if (guest.status === 'paused' && guest.type === 'lxc') {
      context.log(resumingPausedContainer(guest.vmid));
      guest.status = 'running';
    }
    if (guest.status === 'paused') {
      if (!forceStop) throw new Error(pausedVmCannotShutDown(guest.vmid));
      context.log(stoppingPausedVm(guest.vmid));
    } else if (this.timing.shutdownMs <= timeoutS * 1000) {
      if (guest.agent !== undefined) context.log(agentShutdownAsked(guest.vmid));
      await this.pause(this.timing.shutdownMs, context);
      return this.halt(guest);
    } else {
      // The timeout is simulated time too: it scales with the speed.
      await this.pause(timeoutS * 1000, context);
      if (!forceStop) throw new Error(shutdownTimedOut(guest.type, guest.vmid, timeoutS));
      context.log(stoppingAfterTimeout(guest.type, guest.vmid, timeoutS));
    }
    await this.pause(this.timing.stopMs, context);
    this.halt(guest);
  }

  private run(guest: Omit<SimGuest, 'status'>, status: 'running' | 'paused' = 'running'): void {
    this.guests.set({ ...guest, status, pid: this.nextPid, startedAt: Date.now() });
    this.nextPid += 1;
  }

  private halt(guest: SimGuest): void {
    const { pid: _pid, startedAt: _startedAt, agent: _agent, ...rest } = guest;
    this.agents.forget(guest.vmid);
    this.guests.set({ ...rest, status: 'stopped' });
  }

  /** Waits a simulated duration: `ms` at speed 1. */
  private pause(ms: number, context: CommandContext): Promise<void> {
    return delay(ms * this.options.speed, context.signal);
  }
}

/** A stop or shutdown of a stopped guest is no error; the VM part says so in the task log. */
function logNotRunning(type: GuestType, vmid: number, context: CommandContext): void {
  if (type === 'qemu') context.log(notRunning(type, vmid));
}

function logLine(context: CommandContext, line: string | undefined): void {
  if (line !== undefined) context.log(line);
}

/** What the simulator keeps of a guest's configuration. */
function describe(guest: GuestSpec): Omit<SimGuest, 'status' | 'volids'> {
  return { type: guest.type, vmid: guest.vmid, name: guest.name, memoryMiB: guest.memoryMiB, template: guest.template };
}

/** A guest's memory use, 20 to 80 % of its memory depending on its id, so that it is stable from one report to the next. */
function memoryShare(vmid: number): number {
  return 0.2 + ((vmid * 37) % 61) / 100;
}

/** Counters that grow with the guest's uptime, each guest at rates of its own (a few KiB/s in, less out; more written than read). */
function simulatedTraffic(vmid: number, uptime: number): GuestTraffic {
  const rate = 1024 * (1 + ((vmid * 13) % 7));
  return {
    netin: uptime * rate,
    netout: uptime * Math.round(rate / 2),
    diskread: uptime * Math.round(rate / 4),
    diskwrite: uptime * rate * 2,
  };
}

/** Waits `ms` (nothing at all for 0); rejects with the signal's reason when it fires first. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(stopped(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(stopped(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function stopped(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the simulated operation was cancelled');
}
