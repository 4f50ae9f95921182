import { readFile, writeFile } from 'node:fs/promises';
import type { ContainerInterface, GuestRuntime, GuestSpec, ParamsOf } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import { processOrder, type FenceOrder } from '../../fence-orders.js';
import { hostPath, type Host } from '../../../host/host.js';
import { writeHostFile } from '../../../host/host-files.js';
import { CpuMeter } from '../../../host/process-figures.js';
import type { Logger } from '../../../logging/logger.js';
import {
  alreadyRunning,
  cardNotConnected,
  containerExists,
  isTemplate,
  notRunning,
  refusedWhileRunning,
  removingVolume,
  resumingPausedContainer,
  shutdownTimedOut,
  stoppingAfterTimeout,
  type StoppedOnlyOperation,
} from '../../guest-messages.js';
import type { GuestBackups } from '../../guest-backups.js';
import type { GuestMigration } from '../../guest-migration.js';
import { removeEmptyGuestFolder, volumeOf } from '../../guest-volumes.js';
import type { NativeGuests } from '../native-guests.js';
import { existingBridges } from '../host-bridges.js';
import { cgroupLayout } from './kernel-facts.js';
import { LxcBackups } from './lxc-backups.js';
import { LxcSnapshots } from './lxc-snapshots.js';
import { LxcMigration } from './lxc-migration.js';
import { lxcConfig, type CgroupLayout } from './lxc-config.js';
import { LxcTools, startErrors, type LxcEntry } from './lxc-tools.js';
import { readContainerUsage } from './lxc-usage.js';
import type { VolumeOperations } from '../../volume-operations.js';
import { LxcVolumeOperations } from './lxc-volume-operations.js';
import { copyVolume, makeFolder, makeVolumeDirectory, removeTree, removeVolume, statOf, unpackTemplate, type Undo } from './lxc-volumes.js';
import { rootCredentialsOf, writeRootCredentials } from '../../root-credentials.js';
import { parseIpAddresses } from './ip-addresses.js';
import { runChecked } from '../../../host/run-program.js';

/** LXC's `-P`: each container is `<lxcpath>/<vmid>/config`, with the log of its last start beside it. */
const LXC_PATH = '/var/lib/corral/lxc';
/** How long `lxc-wait` gives a started container to reach RUNNING. */
const START_WAIT_S = 30;
/** What `lxc-stop -t` may take beyond the shutdown timeout it was given. */
const STOP_SLACK_MS = 60_000;
/** Reading a running container's addresses: a moment, unless the host is stuck. */
const INTERFACES_TIMEOUT_MS = 10_000;
/** A guest id as a container name: PVE's vmid range. */
const VMID_NAME = /^[1-9]\d{2,8}$/;

/**
 * Containers through the lxc-* tools: privileged, one per vmid on the lxcpath
 * /var/lib/corral/lxc, the root file system in the `rootfs` volume's directory. The config file
 * is rewritten from the GuestSpec at every start; the run state is LXC's, so a restarted agent
 * finds its containers again.
 */
export class NativeLxc implements NativeGuests {
  private readonly tools: LxcTools;
  readonly backups: GuestBackups;
  readonly volumes: VolumeOperations;
  readonly snapshots: LxcSnapshots;
  readonly migration: GuestMigration;
  private readonly cpu = new CpuMeter();
  private cgroup: Promise<CgroupLayout> | undefined;

  constructor(
    private readonly host: Host,
    private readonly logger?: Logger,
  ) {
    this.tools = new LxcTools(hostPath(host, LXC_PATH));
    this.backups = new LxcBackups(host, this.tools, this);
    this.volumes = new LxcVolumeOperations(host, async (vmid, signal) => (await this.tools.state(vmid, signal)) !== 'STOPPED');
    this.snapshots = new LxcSnapshots(host, this.tools, (guest, context) => this.start(guest, context));
    this.migration = new LxcMigration(host, this);
  }

  /** The volumes in `allocate`, the template unpacked into the root (which must be empty) with root's password and keys, the config. */
  async create(params: ParamsOf<'guest.create'>, context: CommandContext): Promise<void> {
    const { guest, allocate, ostemplate, ignoreUnpackErrors } = params;
    const toMake = new Set([...allocate, ...(ostemplate === undefined ? [] : ['rootfs'])]);
    await this.build(
      guest,
      [...toMake],
      async () => {
        if (ostemplate === undefined) return;
        const rootfs = hostPath(this.host, volumeOf(guest, 'rootfs').path);
        await unpackTemplate(this.host, ostemplate, rootfs, context, { ignoreErrors: ignoreUnpackErrors === true });
        const credentials = rootCredentialsOf(params);
        if (credentials !== undefined) await writeRootCredentials(rootfs, credentials);
      },
      context,
    );
  }

  async start(guest: GuestSpec, context: CommandContext): Promise<void> {
    const { vmid } = guest;
    if (guest.template) throw new Error(isTemplate('lxc', vmid));
    if ((await this.tools.state(vmid, context.signal)) !== 'STOPPED') throw new Error(alreadyRunning('lxc', vmid));
    const rootfs = volumeOf(guest, 'rootfs');
    if ((await statOf(hostPath(this.host, rootfs.path)))?.isDirectory() !== true)
      throw new Error(`CT ${vmid} has no root file system: ${rootfs.path} is not a directory`);
    await this.writeConfig(guest, context);
    const log = this.containerFile(vmid, 'lxc.log');
    await writeFile(log, ''); // the log of this start only, for the reason it failed
    const started = await this.tools.run('lxc-start', vmid, ['-d', '-l', 'INFO', '-o', log], { signal: context.signal });
    const running =
      started.code === 0 &&
      (await this.tools.run('lxc-wait', vmid, ['-s', 'RUNNING', '-t', String(START_WAIT_S)], { signal: context.signal })).code === 0;
    if (!running) throw new Error(`CT ${vmid} did not start: ${startErrors(await readFile(log, 'utf8').catch(() => ''))}`);
  }

  /** Kills the container; one that is stopped already (or stops meanwhile) is fine. */
  async stop(vmid: number, context: CommandContext): Promise<void> {
    await this.tools.check('lxc-stop', vmid, ['-k'], { signal: context.signal }).catch(async (error: unknown) => {
      if ((await this.tools.state(vmid, context.signal)) !== 'STOPPED') throw error;
    });
  }

  /** `lxc-stop -k` already kills the container's processes without asking its init. */
  kill(vmid: number, context: CommandContext): Promise<void> {
    return this.stop(vmid, context);
  }

  /** The interfaces inside the running container, read in its network namespace as PVE reads them (`ip -j address` there). */
  async interfaces(vmid: number, context: CommandContext): Promise<ContainerInterface[]> {
    const pid = (await this.tools.run('lxc-info', vmid, ['-p', '-H'], { signal: context.signal })).stdout.trim();
    if (!/^\d+$/.test(pid)) throw new Error(notRunning('lxc', vmid));
    const output = await runChecked('nsenter', ['--target', pid, '--net', '--', 'ip', '-j', 'address', 'show'], {
      signal: context.signal,
      timeoutMs: INTERFACES_TIMEOUT_MS,
    });
    return parseIpAddresses(output.stdout);
  }

  /**
   * SIGKILL to the container's init (checked by its start time), which is what `lxc-stop -k` sends:
   * the kernel then kills every process of its pid namespace. A pid rather than a second `lxc-stop`,
   * so that the watchdog and the agent's own self-fence at the same moment do not fail each other.
   */
  async fenceOrder(vmid: number, signal: AbortSignal): Promise<FenceOrder | undefined> {
    const output = await this.tools.run('lxc-info', vmid, ['-p', '-H'], { signal });
    const pid = output.stdout.trim();
    // Not running when told: `lxc-stop -k` at the fence covers a start after it (harmless on a stopped container).
    return (
      (output.code === 0 && /^\d+$/.test(pid) ? await processOrder(Number(pid)) : undefined) ?? {
        kind: 'run',
        argv: this.tools.argv('lxc-stop', vmid, ['-k']),
      }
    );
  }

  /** Sends init the halt signal (`--nokill`: LXC itself would kill it when the time runs out), then judges by the state. */
  async shutdown(vmid: number, timeoutS: number, forceStop: boolean, context: CommandContext): Promise<void> {
    const state = await this.tools.state(vmid, context.signal);
    if (state === 'STOPPED') return;
    if (state === 'FROZEN') {
      context.log(resumingPausedContainer(vmid));
      await this.tools.check('lxc-unfreeze', vmid, [], { signal: context.signal });
    }
    await this.tools.run('lxc-stop', vmid, ['--nokill', '-t', String(timeoutS)], {
      signal: context.signal,
      timeoutMs: timeoutS * 1000 + STOP_SLACK_MS,
    });
    if ((await this.tools.state(vmid, context.signal)) === 'STOPPED') return;
    if (!forceStop) throw new Error(shutdownTimedOut('lxc', vmid, timeoutS));
    context.log(stoppingAfterTimeout('lxc', vmid, timeoutS));
    await this.stop(vmid, context);
  }

  async reboot(guest: GuestSpec, timeoutS: number, context: CommandContext): Promise<void> {
    await this.shutdown(guest.vmid, timeoutS, true, context);
    await this.start(guest, context);
  }

  async suspend(vmid: number, context: CommandContext): Promise<void> {
    const state = await this.tools.state(vmid, context.signal);
    if (state === 'STOPPED') throw new Error(notRunning('lxc', vmid));
    if (state !== 'FROZEN') await this.tools.check('lxc-freeze', vmid, [], { signal: context.signal });
  }

  async resume(vmid: number, context: CommandContext): Promise<void> {
    if ((await this.tools.state(vmid, context.signal)) === 'STOPPED') throw new Error(notRunning('lxc', vmid));
    await this.tools.check('lxc-unfreeze', vmid, [], { signal: context.signal });
  }

  /** Removes the guest's snapshots, volumes and its folder on the lxcpath; what is missing already is fine. */
  async destroy(guest: GuestSpec, context: CommandContext): Promise<void> {
    await this.refuseRunning(guest.vmid, 'destroy', context.signal);
    await this.snapshots.removeAll(guest, context.signal);
    for (const each of guest.volumes) {
      context.log(removingVolume('lxc', each));
      await removeVolume(this.host, guest.vmid, each, context.signal);
      await removeEmptyGuestFolder(hostPath(this.host, each.path), guest.vmid);
    }
    await removeTree(this.containerFile(guest.vmid), context.signal);
  }

  /** A full copy of each volume of `source` into the volume of `target` with the same key. */
  async clone({ source, target }: ParamsOf<'guest.clone'>, context: CommandContext): Promise<void> {
    await this.refuseRunning(source.vmid, 'clone', context.signal);
    await this.build(
      target,
      target.volumes.map((volume) => volume.key),
      async () => {
        for (const to of target.volumes) await copyVolume(this.host, volumeOf(source, to.key), to, context);
      },
      context,
    );
  }

  /**
   * Nothing changes on the host: a template's volumes stay plain directories (clones copy them)
   * and `start` refuses a guest whose spec says template. Only a running container is refused.
   */
  async template(guest: GuestSpec, context: CommandContext): Promise<void> {
    await this.refuseRunning(guest.vmid, 'template', context.signal);
  }

  /**
   * Makes a container that does not exist yet (a create, a clone, a restore): the empty directories
   * of the volumes of `keys`, filled by `fill`, then its folder and config on the lxcpath. When
   * anything fails, what it made is removed, last first, and it fails with that error.
   */
  async build(guest: GuestSpec, keys: readonly string[], fill: () => Promise<void>, context: CommandContext): Promise<void> {
    await this.refuseExisting(guest.vmid);
    const undo: Undo[] = [];
    try {
      for (const key of keys) undo.push(await makeVolumeDirectory(this.host, guest.vmid, volumeOf(guest, key)));
      await fill();
      undo.push(await makeFolder(this.containerFile(guest.vmid)));
      await this.writeConfig(guest, context);
    } catch (error) {
      for (const step of undo.reverse()) {
        await step().catch((failure: unknown) =>
          this.logger?.warn('could not clean up after a failed container command', { vmid: guest.vmid, error: failure }),
        );
      }
      throw error;
    }
  }

  async list(signal: AbortSignal): Promise<GuestRuntime[]> {
    const entries = (await this.tools.list(signal)).filter((entry) => VMID_NAME.test(entry.name));
    const guests = await Promise.all(entries.map((entry) => this.runtime(entry)));
    this.cpu.keepOnly(new Set(guests.filter((guest) => guest.pid !== undefined).map((guest) => guest.vmid)));
    return guests;
  }

  private async runtime(entry: LxcEntry): Promise<GuestRuntime> {
    const vmid = Number(entry.name);
    const idle = { vmid, type: 'lxc', uptime: 0, cpu: 0, mem: 0 } as const;
    if (entry.state === 'STOPPED' || entry.pid === undefined) return { ...idle, status: 'stopped' };
    const status = entry.state === 'FROZEN' || entry.state === 'FREEZING' ? 'paused' : 'running';
    const usage = await readContainerUsage(entry.pid);
    if (usage === undefined) return { ...idle, status, pid: entry.pid };
    return {
      ...idle,
      status,
      pid: entry.pid,
      uptime: usage.uptime,
      mem: usage.mem,
      cpu: this.cpu.measure(vmid, usage.startTicks, usage.cpuSeconds),
      ...usage.traffic,
    };
  }

  /** The config from the spec: cards on bridges the host lacks are left unplugged, and the task log says so. */
  private async writeConfig(guest: GuestSpec, context: CommandContext): Promise<void> {
    const bridges = await existingBridges(guest.nics.flatMap((nic) => (nic.bridge === undefined ? [] : [nic.bridge])));
    for (const nic of guest.nics) {
      if (nic.bridge !== undefined && !bridges.has(nic.bridge)) context.log(cardNotConnected(nic.key, nic.bridge));
    }
    this.cgroup ??= cgroupLayout();
    const text = lxcConfig(guest, { rootfs: hostPath(this.host, volumeOf(guest, 'rootfs').path), cgroup: await this.cgroup, bridges });
    await writeHostFile(this.host, `${LXC_PATH}/${guest.vmid}/config`, text);
  }

  /** `<lxcpath>/<vmid>`, or a file in it. */
  private containerFile(vmid: number, name?: string): string {
    return hostPath(this.host, name === undefined ? `${LXC_PATH}/${vmid}` : `${LXC_PATH}/${vmid}/${name}`);
  }

  /** Whether a container of that id has its config on this host. */
  async exists(vmid: number): Promise<boolean> {
    return (await statOf(this.containerFile(vmid, 'config'))) !== undefined;
  }

  async refuseExisting(vmid: number): Promise<void> {
    if (await this.exists(vmid)) throw new Error(containerExists(vmid));
  }

  /** Whether the container is stopped (one LXC does not know is). */
  async stopped(vmid: number, signal: AbortSignal): Promise<boolean> {
    return (await this.tools.state(vmid, signal)) === 'STOPPED';
  }

  /** Removes the container's folder on the lxcpath, its volumes left as they are: it moved to another node. */
  async forget(vmid: number, signal: AbortSignal): Promise<void> {
    await removeTree(this.containerFile(vmid), signal);
  }

  private async refuseRunning(vmid: number, operation: StoppedOnlyOperation, signal: AbortSignal): Promise<void> {
    if ((await this.tools.state(vmid, signal)) !== 'STOPPED') throw new Error(refusedWhileRunning('lxc', vmid, operation));
  }
}
