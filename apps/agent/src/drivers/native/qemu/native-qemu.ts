import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import type { Socket } from 'node:net';
import type { GuestRuntime, GuestSpec, ParamsOf } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import type { FenceOrder } from '../../fence-orders.js';
import { hostPath, type Host } from '../../../host/host.js';
import { ProcessFigures } from '../../../host/process-figures.js';
import { lastWords, runChecked, runProgram, type ProgramOutput } from '../../../host/run-program.js';
import type { Logger } from '../../../logging/logger.js';
import {
  agentShutdownAsked,
  alreadyRunning,
  isTemplate,
  notRunning,
  pausedVmCannotShutDown,
  refusedWhileRunning,
  removingVolume,
  shutdownTimedOut,
  stoppingAfterTimeout,
  stoppingPausedVm,
} from '../../guest-messages.js';
import type { GuestBackups } from '../../guest-backups.js';
import type { GuestMigration } from '../../guest-migration.js';
import type { GuestSnapshots } from '../../guest-snapshots.js';
import { ownVolumes, removeEmptyGuestFolder, volumeOf } from '../../guest-volumes.js';
import { existingBridges } from '../host-bridges.js';
import type { NativeGuests } from '../native-guests.js';
import { QemuBackups } from './qemu-backup.js';
import { QemuGuestAgents, type QgaTimeouts } from './qemu-guest-agent.js';
import { CommandFailure } from '../../../host/command-failure.js';
import { formatCommandLine, qemuCommandLine } from './qemu-command-line.js';
import { deviceOptions } from './qemu-device-options.js';
import { acceleratorOf } from './qemu-accelerator.js';
import type { Accelerator } from './qemu-cpu-model.js';
import { efiVarsImagePlan, isQ35, ovmfFiles, prepareFirmware, requireOvmf } from './qemu-firmware.js';
import { convertImagePlan, createImagePlan, makeImages, makeReadOnly } from './qemu-images.js';
import { startSwtpm } from './qemu-tpm.js';
import { QemuMigration } from './qemu-migration.js';
import { QemuVolumeOperations } from './qemu-volume-operations.js';
import type { VolumeOperations } from '../../volume-operations.js';
import { QemuSnapshots } from './qemu-snapshots.js';
import { waitForExit } from './qemu-process.js';
import { removeRuntimeFiles, vmidsWithPidFiles, type QemuRuntimeFiles } from './qemu-runtime-files.js';
import { QemuVm, runState, type RunState } from './qemu-vm.js';
import { connectVnc } from './qemu-vnc.js';
import { vmFailure } from './vm-failure.js';
import { writeCloudinitDrive } from './qemu-cloudinit.js';

const QEMU = 'qemu-system-x86_64';
/** list() runs every few seconds: a monitor that a command holds gets this long, then the last state QMP gave counts. */
const LIST_QMP_TIMEOUT_MS = 1000;

/** How a VM's QEMU starts: waiting for a migration's state, or resuming a snapshot's. */
interface LaunchOptions {
  readonly incoming?: boolean;
  readonly loadvm?: string;
}

export interface NativeQemuOptions {
  /** This accelerator instead of KVM when /dev/kvm opens read-write, else TCG (tests force TCG, to behave alike on every machine); a VM's `kvm: 0` still means TCG. */
  readonly accelerator?: Accelerator;
  /** How long a guest agent gets to answer (tests shorten the sync). */
  readonly guestAgent?: QgaTimeouts;
}

/**
 * The native driver's VMs: QEMU run directly, one daemonized `qemu-system-x86_64` per VM, driven
 * over QMP. QEMU's pid file and sockets in QEMU_RUN_DIR are the whole runtime state, so VMs
 * outlive the agent and a restarted agent finds them again. Images are made with qemu-img.
 */
export class NativeQemu implements NativeGuests {
  private readonly figures = new ProcessFigures();
  /** The state QMP last gave, for the list() that finds a monitor busy. */
  private readonly states = new Map<number, RunState>();
  /** VMs this agent is starting: their pid file may be half written, so list() leaves them alone. */
  private readonly starting = new Set<number>();
  readonly migration: GuestMigration;
  readonly backups: GuestBackups;
  readonly volumes: VolumeOperations;
  readonly snapshots: GuestSnapshots;
  private readonly agents: QemuGuestAgents;

  constructor(
    private readonly host: Host,
    private readonly logger?: Logger,
    private readonly options: NativeQemuOptions = {},
  ) {
    this.migration = new QemuMigration(host, (guest, context) => this.begin(guest, context, { incoming: true }));
    this.backups = new QemuBackups(host, this);
    this.volumes = new QemuVolumeOperations(host);
    this.agents = new QemuGuestAgents(options.guestAgent);
    this.snapshots = new QemuSnapshots(host, (guest, context, loadvm) =>
      this.begin(guest, context, loadvm === undefined ? {} : { loadvm }),
    );
  }

  /** Empty images, and for an EFI vars disk a copy of OVMF's vars template. */
  async create({ guest, allocate }: ParamsOf<'guest.create'>, context: CommandContext): Promise<void> {
    const plans = await Promise.all(
      allocate.map(async (key) => {
        const volume = volumeOf(guest, key);
        if (volume.efivars === undefined) return createImagePlan(this.host, guest.vmid, volume);
        const ovmf = ovmfFiles(volume.efivars, isQ35(guest));
        await requireOvmf(ovmf);
        return efiVarsImagePlan(this.host, guest.vmid, volume, ovmf);
      }),
    );
    await makeImages(this.host, guest.vmid, plans, context);
  }

  start(guest: GuestSpec, context: CommandContext): Promise<void> {
    return this.begin(guest, context, {});
  }

  /** A start; for the target of a migration a QEMU that waits for the VM's state (`incoming`); for a rollback one that resumes a snapshot's (`loadvm`). */
  private async begin(guest: GuestSpec, context: CommandContext, how: LaunchOptions): Promise<void> {
    const vm = this.vm(guest.vmid);
    if (guest.template) throw new Error(isTemplate('qemu', vm.vmid));
    if (this.starting.has(vm.vmid)) throw new Error(`VM ${vm.vmid} is already starting`);
    if ((await vm.runningPid()) !== undefined) throw new Error(alreadyRunning('qemu', vm.vmid));
    this.starting.add(vm.vmid);
    try {
      await this.launch(vm, guest, context, how);
    } finally {
      this.starting.delete(vm.vmid);
    }
  }

  async stop(vmid: number, context: CommandContext): Promise<void> {
    const vm = this.vm(vmid);
    const pid = await vm.runningPid();
    if (pid !== undefined) return vm.quit(pid, context);
    context.log(notRunning('qemu', vmid));
    await removeRuntimeFiles(vm.files);
  }

  /** SIGKILL at once: `quit` would wait for a monitor that a command (a backup, a migration) may hold. */
  async kill(vmid: number, context: CommandContext): Promise<void> {
    const vm = this.vm(vmid);
    if ((await vm.runningPid()) === undefined) context.log(notRunning('qemu', vmid));
    await vm.kill();
  }

  /**
   * SIGKILL to the QEMU its pid file names at the fence, if that process was started with that pid
   * file (`-pidfile`): it covers a VM started after the watchdog was last told, as well as one that
   * runs now.
   */
  async fenceOrder(vmid: number): Promise<FenceOrder> {
    return { kind: 'pidfile', path: this.vm(vmid).files.pid };
  }

  /**
   * The guest agent's `guest-shutdown` when the VM has its channel and an agent answers (as PVE with
   * `agent: 1`), else the ACPI power button; then wait. A guest without an OS (or ACPI) ignores
   * the button, which is what forceStop is for.
   */
  async shutdown(vmid: number, timeoutS: number, forceStop: boolean, context: CommandContext): Promise<void> {
    const vm = this.vm(vmid);
    const pid = await vm.runningPid();
    if (pid === undefined) return this.stop(vmid, context);
    const state = await vm.qmp('could not ask it to shut down', context.signal, runState);
    if (state === 'running' && !(await this.agentShutdown(vm, context)))
      await vm.qmp('could not ask it to shut down', context.signal, (qmp) => qmp.execute('system_powerdown'));
    // A paused guest cannot see the button: PVE refuses, or stops it when forced.
    if (state === 'paused' && !forceStop) throw new Error(pausedVmCannotShutDown(vmid));
    if (state === 'running' && (await waitForExit(pid, vm.files.pid, timeoutS * 1000, context.signal))) return removeRuntimeFiles(vm.files);
    if (!forceStop) throw new Error(shutdownTimedOut('qemu', vmid, timeoutS));
    context.log(state === 'paused' ? stoppingPausedVm(vmid) : stoppingAfterTimeout('qemu', vmid, timeoutS));
    await vm.quit(pid, context);
  }

  async reboot(guest: GuestSpec, timeoutS: number, context: CommandContext): Promise<void> {
    await this.vm(guest.vmid).requireRunning();
    await this.shutdown(guest.vmid, timeoutS, true, context);
    await this.start(guest, context);
  }

  writeCloudinit(params: ParamsOf<'guest.cloudinit.write'>, context: CommandContext): Promise<void> {
    return writeCloudinitDrive(this.host, params, context);
  }

  async reset(vmid: number, context: CommandContext): Promise<void> {
    const vm = this.vm(vmid);
    await vm.requireRunning();
    await vm.qmp('could not reset', context.signal, (qmp) => qmp.execute('system_reset'));
  }

  /** Pausing a paused VM (or resuming a running one) does nothing, as in PVE: a repeated request is no error. */
  async suspend(vmid: number, context: CommandContext): Promise<void> {
    await this.setState(vmid, 'paused', context);
  }

  async resume(vmid: number, context: CommandContext): Promise<void> {
    await this.setState(vmid, 'running', context);
  }

  async monitor(vmid: number, command: string, context: CommandContext): Promise<string> {
    const vm = this.vm(vmid);
    await vm.requireRunning();
    const output = await vm.qmp('monitor command failed', context.signal, (qmp) =>
      qmp.execute('human-monitor-command', { 'command-line': command }),
    );
    return typeof output === 'string' ? output : '';
  }

  async guestAgent({ vmid, ...command }: ParamsOf<'guest.agent'>, { signal }: CommandContext): Promise<unknown> {
    const vm = this.vm(vmid);
    await vm.requireRunning();
    return this.agents.execute(vmid, vm.files, command, signal);
  }

  async vnc(vmid: number): Promise<Socket> {
    const vm = this.vm(vmid);
    await vm.requireRunning();
    return connectVnc(vmid, vm.files);
  }

  /** The VM's images and runtime files; a file already gone is fine. CD-ROM images are shared ISOs and stay. */
  async destroy(guest: GuestSpec, context: CommandContext): Promise<void> {
    const vm = this.vm(guest.vmid);
    if ((await vm.runningPid()) !== undefined) throw new Error(refusedWhileRunning('qemu', vm.vmid, 'destroy'));
    for (const volume of ownVolumes(guest)) {
      await rm(hostPath(this.host, volume.path), { force: true });
      await removeEmptyGuestFolder(hostPath(this.host, volume.path), guest.vmid);
      context.log(removingVolume('qemu', volume));
    }
    await removeRuntimeFiles(vm.files, true);
  }

  /** Each target volume from the source's volume of the same key: a full copy, or an overlay of its `base` for a linked clone. */
  async clone({ source, target }: ParamsOf<'guest.clone'>, context: CommandContext): Promise<void> {
    if ((await this.vm(source.vmid).runningPid()) !== undefined) throw new Error(refusedWhileRunning('qemu', source.vmid, 'clone'));
    const plans = ownVolumes(target).map((volume) =>
      volume.base === undefined
        ? convertImagePlan(this.host, target.vmid, volumeOf(source, volume.key), volume)
        : createImagePlan(this.host, target.vmid, volume),
    );
    await makeImages(this.host, target.vmid, plans, context);
  }

  /** Read-only images, so that nothing writes to a base that linked clones read; the control plane renames and flags. */
  async template(guest: GuestSpec, context: CommandContext): Promise<void> {
    const { vmid } = guest;
    if ((await this.vm(vmid).runningPid()) !== undefined) throw new Error(refusedWhileRunning('qemu', vmid, 'template'));
    const volumes = ownVolumes(guest);
    // All checked first, so that a missing one leaves no image half made read-only.
    for (const volume of volumes) {
      await stat(hostPath(this.host, volume.path)).catch(() => {
        throw new Error(`VM ${vmid}: volume ${volume.key} does not exist (${volume.path})`);
      });
    }
    await makeReadOnly(this.host, volumes, context.log);
  }

  /** Every VM whose QEMU runs, from the pid files; the files of a QEMU that died are removed. */
  async list(signal: AbortSignal): Promise<GuestRuntime[]> {
    const vmids = (await vmidsWithPidFiles(this.host)).filter((vmid) => !this.starting.has(vmid));
    const guests = (await Promise.all(vmids.map((vmid) => this.runtime(this.vm(vmid), signal)))).flatMap((guest) => guest ?? []);
    const listed = new Set(guests.map((guest) => guest.vmid));
    this.figures.keepOnly(listed);
    for (const vmid of this.states.keys()) if (!listed.has(vmid)) this.states.delete(vmid);
    return guests;
  }

  private async launch(vm: QemuVm, guest: GuestSpec, context: CommandContext, { incoming, loadvm }: LaunchOptions): Promise<void> {
    const { signal, log } = context;
    await removeRuntimeFiles(vm.files); // a killed QEMU's
    await mkdir(vm.files.dir, { recursive: true });
    const accelerator = await acceleratorOf(guest.config, this.options.accelerator);
    const bridges = await existingBridges([...new Set(guest.nics.flatMap((nic) => nic.bridge ?? []))]);
    const line = qemuCommandLine(guest, {
      host: this.host,
      accelerator,
      files: vm.files,
      bridges,
      ...(incoming === true ? { incoming } : {}),
      ...(loadvm !== undefined ? { loadvm } : {}),
    });
    const devices = deviceOptions(guest.vmid, guest.config);
    for (const note of [...line.notes, ...devices.notes]) log(note);
    const args = [...line.args, ...devices.args];
    log(formatCommandLine(QEMU, args));
    try {
      await prepareFirmware(guest, vm.files, log);
      const tpm = guest.volumes.find((volume) => volume.key === 'tpmstate0');
      if (tpm !== undefined) await startSwtpm(this.host, guest.vmid, tpm, vm.files, context);
      // -daemonize: it returns once QEMU is ready (paused, -S), or fails.
      const output = await runProgram(QEMU, args, { signal });
      if (output.code !== 0) throw new Error(`${QEMU} failed (exit code ${output.code}): ${await qemuLastWords(output, vm.files)}`);
      for (const tap of line.taps) await runChecked('ip', ['link', 'set', 'dev', tap.ifname, 'master', tap.bridge, 'up'], { signal });
      // It runs once its state has arrived (QemuMigration.finish).
      if (incoming === true) return;
      const state = await vm.qmp('did not answer on QMP', signal, async (qmp) => {
        if (!devices.frozen) await qmp.execute('cont');
        return runState(qmp);
      });
      if (state !== (devices.frozen ? 'paused' : 'running'))
        throw new Error(devices.frozen ? 'QEMU is not paused as freeze asks' : 'QEMU did not leave its paused state');
      this.states.set(vm.vmid, state);
    } catch (error) {
      await vm.kill().catch((cleanup: Error) => log(cleanup.message));
      throw vmFailure(vm.vmid, 'could not start', error);
    }
  }

  /** Whether the guest agent took `guest-shutdown`; one that does not answer leaves it to the power button. */
  private async agentShutdown(vm: QemuVm, { signal, log }: CommandContext): Promise<boolean> {
    if (!(await this.agents.hasChannel(vm.files))) return false;
    try {
      await this.agents.execute(vm.vmid, vm.files, { command: 'guest-shutdown' }, signal);
      log(agentShutdownAsked(vm.vmid));
      return true;
    } catch (error) {
      if (!(error instanceof CommandFailure) || error.code !== 'unavailable') throw error;
      log(`VM ${vm.vmid}: ${error.message}: using the ACPI power button`);
      return false;
    }
  }

  private async setState(vmid: number, wanted: RunState, { signal }: CommandContext): Promise<void> {
    const vm = this.vm(vmid);
    await vm.requireRunning();
    await vm.qmp(`could not ${wanted === 'paused' ? 'suspend' : 'resume'}`, signal, (qmp) =>
      qmp.execute(wanted === 'paused' ? 'stop' : 'cont'),
    );
    this.states.set(vmid, wanted);
  }

  private async runtime(vm: QemuVm, signal: AbortSignal): Promise<GuestRuntime | undefined> {
    const pid = await vm.runningPid();
    const figures = pid === undefined ? undefined : await this.figures.read(vm.vmid, pid);
    if (pid === undefined || figures === undefined) {
      await removeRuntimeFiles(vm.files);
      this.logger?.info('removed the runtime files of a VM whose QEMU is gone', { vmid: vm.vmid });
      return undefined;
    }
    const status = await this.listedState(vm, signal);
    return { vmid: vm.vmid, type: 'qemu', status, pid, ...figures };
  }

  private async listedState(vm: QemuVm, signal: AbortSignal): Promise<RunState> {
    try {
      const state = await vm.qmp('status', signal, runState, LIST_QMP_TIMEOUT_MS);
      this.states.set(vm.vmid, state);
      return state;
    } catch {
      signal.throwIfAborted();
      return this.states.get(vm.vmid) ?? 'running';
    }
  }

  private vm(vmid: number): QemuVm {
    return new QemuVm(this.host, vmid);
  }
}

/** What QEMU said when it failed to start: once it goes to the background, it writes its errors to its log (-D), not to stderr. */
async function qemuLastWords(output: ProgramOutput, files: QemuRuntimeFiles): Promise<string> {
  const logged = await readFile(files.log, 'utf8').catch(() => '');
  return lastWords({ ...output, stderr: output.stderr.trim() || logged });
}

/** KVM when this process may use /dev/kvm, else TCG, which runs anywhere. */
