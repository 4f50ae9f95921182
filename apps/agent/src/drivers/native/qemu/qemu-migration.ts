import { readFile, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GuestSpec, GuestVolume, ParamsOf, ResultOf } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import { hostPath, type Host } from '../../../host/host.js';
import { PROC_ROOT } from '../../../host/kernel-roots.js';
import { runChecked } from '../../../host/run-program.js';
import { copyingToNode, existsOnTarget, guestLabel, notRunning, removingVolume, runningNeedsOnline } from '../../guest-messages.js';
import type { GuestMigration } from '../../guest-migration.js';
import { volumeOf } from '../../guest-volumes.js';
import { createImagePlan, makeImages, makeReadOnly } from './qemu-images.js';
import { driveNodes, namedNodes, serveVolumes, stopServing } from './qemu-nbd-exports.js';
import { removeRuntimeFiles } from './qemu-runtime-files.js';
import { StorageDaemon } from './qemu-storage-daemon.js';
import { QemuVm, runState, type RunState } from './qemu-vm.js';
import { ended, migrationError, migrationProgress, mirrorProgress, type JobStatus, type MigrationStatus } from './migration-status.js';
import type { QmpClient } from './qmp-client.js';

/** How often the mirrors and the target are asked how far they are. */
const POLL_MS = 250;
/** How often the migration is asked, from its start to the handover: the VM stands still while it waits for the next look. */
const HANDOVER_POLL_MS = 20;
/** The cleanup after a failed send: cancelling takes QEMU moments, unless it hangs. */
const CLEANUP_MS = 30_000;
/** The target's QEMU takes in the last of the state moments after the source says it is done. */
const ARRIVAL_MS = 60_000;
/** A copy of a large disk takes long: the request's own timeout bounds it, this only catches a hung qemu-img. */
const COPY_LIMIT_MS = 24 * 3600_000;

/** The source's node of a disk's copy on the target (an NBD client), and the job that mirrors into it. */
const targetNode = (key: string) => `migrate-target-${key}`;
const mirrorJob = (key: string) => key;

/** Starts the VM's QEMU waiting for an incoming migration (`-incoming defer`, paused) with its taps on their bridges. */
export type IncomingLauncher = (guest: GuestSpec, context: CommandContext) => Promise<void>;

/**
 * The native driver's VM migration (libs/protocol guest-migrate.ts; docs/guests.md "Migration").
 *
 * Online, as PVE and libvirt move VMs with local disks: the target starts the VM's QEMU with
 * `-incoming defer` and paused, on empty images of the disks' sizes, and serves those images over
 * NBD from that same QEMU. The source mirrors each disk into them while the VM runs, then starts
 * the migration of the VM's state with `pause-before-switchover`: once the VM is stopped for the
 * handover, the mirrors write what is left and end in sync, and only then is the handover
 * allowed. The target activates its images (`late-block-activate`) and runs the VM when told to
 * (`finish`), after it stopped serving them. A volume the VM does not have open is copied with
 * qemu-img into the same NBD server.
 *
 * Offline, the target serves empty images from a qemu-storage-daemon, and the source copies each
 * volume into them with qemu-img.
 */
export class QemuMigration implements GuestMigration {
  constructor(
    private readonly host: Host,
    private readonly launchIncoming: IncomingLauncher,
  ) {}

  async receive(
    { guest, copy, online, listen }: ParamsOf<'guest.migrate.receive'>,
    context: CommandContext,
  ): Promise<ResultOf<'guest.migrate.receive'>> {
    const vm = this.vmOf(guest);
    if ((await vm.runningPid()) !== undefined) throw new Error(existsOnTarget('qemu', vm.vmid));
    const volumes = copied(guest, copy);
    await makeImages(
      this.host,
      vm.vmid,
      volumes.map((volume) => createImagePlan(this.host, vm.vmid, volume)),
      context,
    );
    try {
      const ports = online
        ? await this.receiveOnline(vm, guest, volumes, listen, context)
        : await this.receiveOffline(vm.vmid, volumes, listen, context);
      context.log(
        `receiving VM ${vm.vmid} on ${listen}: volumes on port ${ports.nbdPort}${ports.migrationPort === undefined ? '' : `, its state on port ${ports.migrationPort}`}`,
      );
      return ports;
    } catch (error) {
      await this.abort({ guest, copy }, context).catch((cleanup: Error) => context.log(cleanup.message));
      throw error;
    }
  }

  async send(
    { guest, copy, online, target }: ParamsOf<'guest.migrate.send'>,
    context: CommandContext,
  ): Promise<ResultOf<'guest.migrate.send'>> {
    const vm = this.vmOf(guest);
    const volumes = copied(guest, copy);
    const pid = await vm.runningPid();
    if (!online) {
      if (pid !== undefined) throw new Error(runningNeedsOnline('qemu', vm.vmid));
      for (const volume of volumes) await this.copyVolume(vm.vmid, volume, target, context);
      await this.removeFromHere(vm, volumes, context);
      return { state: 'stopped' };
    }
    if (pid === undefined) throw new Error(notRunning('qemu', vm.vmid));
    const state = await this.sendOnline(vm, volumes, target, context);
    await vm.quit(pid, context);
    await this.removeFromHere(vm, volumes, context);
    return { state };
  }

  async finish({ guest, copy, state }: ParamsOf<'guest.migrate.finish'>, context: CommandContext): Promise<void> {
    const vm = this.vmOf(guest);
    const volumes = copied(guest, copy);
    if (state === 'stopped') {
      await new StorageDaemon(this.host, vm.vmid).stop();
      // A template's images are read-only bases (NativeQemu.template).
      if (guest.template) await makeReadOnly(this.host, volumes, context.log);
      return;
    }
    await vm.requireRunning();
    const arrived = async (qmp: QmpClient) => {
      const status = (await qmp.execute('query-migrate')) as MigrationStatus;
      if (ended(status)) throw migrationError(status);
      return status.status === 'completed' ? true : undefined;
    };
    await this.poll(vm, 'did not receive all of its state', context, arrived, { timeoutMs: ARRIVAL_MS });
    await vm.qmp(`could not ${state === 'running' ? 'resume' : 'end'} it after the migration`, context.signal, async (qmp) => {
      await stopServing(qmp, volumes);
      // The images become the VM's own again here (late-block-activate): after nothing else writes to them.
      if (state === 'running') await qmp.execute('cont');
    });
  }

  /** Never touches a VM that runs here for real: only a QEMU started with `-incoming` is stopped. */
  async abort({ guest, copy }: ParamsOf<'guest.migrate.abort'>, context: CommandContext): Promise<void> {
    const vm = this.vmOf(guest);
    await new StorageDaemon(this.host, vm.vmid).stop();
    const pid = await vm.runningPid();
    if (pid !== undefined) {
      if (!(await startedForMigration(pid))) {
        context.log(`VM ${vm.vmid} runs on this node, not as the target of a migration: it is left alone`);
        return;
      }
      await vm.kill();
    }
    for (const volume of copied(guest, copy)) {
      await rm(hostPath(this.host, volume.path), { force: true });
      context.log(removingVolume('qemu', volume));
    }
    await removeRuntimeFiles(vm.files, true);
  }

  private async receiveOnline(
    vm: QemuVm,
    guest: GuestSpec,
    volumes: readonly GuestVolume[],
    listen: string,
    context: CommandContext,
  ): Promise<ResultOf<'guest.migrate.receive'>> {
    await this.launchIncoming(guest, context);
    return vm.qmp('could not get ready to receive it', context.signal, async (qmp) => {
      await qmp.execute('migrate-set-capabilities', { capabilities: [{ capability: 'late-block-activate', state: true }] });
      await qmp.execute('migrate-incoming', { uri: tcpUri(listen, 0) });
      const status = (await qmp.execute('query-migrate')) as MigrationStatus;
      const migrationPort = Number(status['socket-address']?.[0]?.port);
      if (!Number.isInteger(migrationPort) || migrationPort <= 0) throw new Error('QEMU did not say where it receives the migration');
      return { nbdPort: await serveVolumes(qmp, this.host, listen, volumes), migrationPort };
    });
  }

  private async receiveOffline(
    vmid: number,
    volumes: readonly GuestVolume[],
    listen: string,
    context: CommandContext,
  ): Promise<ResultOf<'guest.migrate.receive'>> {
    const daemon = new StorageDaemon(this.host, vmid);
    await daemon.start(context);
    return {
      nbdPort: await daemon.qmp('could not serve its volumes', context.signal, (qmp) => serveVolumes(qmp, this.host, listen, volumes)),
    };
  }

  /** Resolves with the run state the VM had when it left; on failure it runs here as before. */
  private async sendOnline(
    vm: QemuVm,
    volumes: readonly GuestVolume[],
    target: ParamsOf<'guest.migrate.send'>['target'],
    context: CommandContext,
  ): Promise<RunState> {
    const { signal, log } = context;
    const { address, nbdPort, migrationPort } = target;
    if (migrationPort === undefined) throw new Error(`VM ${vm.vmid}: the target gave no port for the VM's state`);
    const { state, drives } = await vm.qmp('could not read its state', signal, async (qmp) => ({
      state: await runState(qmp),
      drives: await driveNodes(qmp),
    }));
    const mirrored = volumes.filter((volume) => drives.has(`drive-${volume.key}`));
    try {
      for (const volume of volumes.filter((candidate) => !mirrored.includes(candidate)))
        await this.copyVolume(vm.vmid, volume, target, context);
      await vm.qmp('could not start mirroring its disks', signal, async (qmp) => {
        for (const { key } of mirrored) {
          await qmp.execute('blockdev-add', {
            driver: 'nbd',
            'node-name': targetNode(key),
            server: { type: 'inet', host: address, port: String(nbdPort) },
            export: key,
          });
          await qmp.execute('blockdev-mirror', {
            'job-id': mirrorJob(key),
            device: `drive-${key}`,
            target: targetNode(key),
            sync: 'full',
            'auto-dismiss': false,
          });
          log(`mirroring ${key} to node ${target.node}`);
        }
      });
      const mirrors = new Set(mirrored.map((volume) => mirrorJob(volume.key)));
      const mirroring = mirrorProgress(mirrors, log);
      await this.poll(vm, 'mirroring its disks failed', context, async (qmp) => (mirroring(await jobsOf(qmp, mirrors)) ? true : undefined));
      await vm.qmp('could not start the migration', signal, async (qmp) => {
        await qmp.execute('migrate-set-capabilities', { capabilities: [{ capability: 'pause-before-switchover', state: true }] });
        await qmp.execute('migrate', { uri: tcpUri(address, migrationPort) });
      });
      const progress = migrationProgress(log);
      const reached = (status: string) => async (qmp: QmpClient) =>
        progress((await qmp.execute('query-migrate')) as MigrationStatus) === status ? true : undefined;
      await this.poll(vm, 'migration failed', context, reached('pre-switchover'), { everyMs: HANDOVER_POLL_MS });
      // The VM is stopped for the handover: each mirror writes what is left and ends in sync.
      await vm.qmp('could not complete its disks', signal, async (qmp) => {
        for (const job of mirrors) await qmp.execute('block-job-cancel', { device: job });
      });
      await this.poll(vm, 'completing its disks failed', context, async (qmp) => ((await endJobs(qmp, mirrors)) ? true : undefined), {
        everyMs: HANDOVER_POLL_MS,
      });
      await vm.qmp('could not hand it over', signal, async (qmp) => {
        for (const { key } of mirrored) await qmp.execute('blockdev-del', { 'node-name': targetNode(key) });
        await qmp.execute('migrate-continue', { state: 'pre-switchover' });
      });
      await this.poll(vm, 'migration failed', context, reached('completed'), { everyMs: HANDOVER_POLL_MS });
    } catch (error) {
      await this.cancelSend(vm, mirrored, state, log);
      throw error;
    }
    return state;
  }

  /** After a failed send: the migration and the mirrors cancelled, their nodes closed, and the VM running again if it ran. */
  private async cancelSend(vm: QemuVm, mirrored: readonly GuestVolume[], state: RunState, log: (line: string) => void): Promise<void> {
    const signal = AbortSignal.timeout(CLEANUP_MS);
    const mirrors = new Set(mirrored.map((volume) => mirrorJob(volume.key)));
    try {
      await vm.qmp('could not cancel the migration', signal, async (qmp) => {
        await qmp.execute('migrate_cancel');
        for (const job of (await jobsOf(qmp, mirrors)).filter((candidate) => candidate.status !== 'concluded'))
          await qmp.execute('job-cancel', { id: job.id });
      });
      await this.poll(vm, 'cancelling the mirrors failed', { signal }, async (qmp) =>
        (await endJobs(qmp, mirrors, 'ignore')) ? true : undefined,
      );
      await vm.qmp('could not close the copies of its disks', signal, async (qmp) => {
        const open = await namedNodes(qmp);
        for (const { key } of mirrored) if (open.has(targetNode(key))) await qmp.execute('blockdev-del', { 'node-name': targetNode(key) });
        // QEMU resumes a VM whose migration failed, unless it failed in the handover's pause.
        if (state === 'running' && (await runState(qmp)) === 'paused') await qmp.execute('cont');
      });
    } catch (error) {
      log(`${(error as Error).message} (cleaning up after the failed migration)`);
    }
  }

  /** qemu-img into the target's NBD export of the volume; the target's image is new, so zeros need no writing. */
  private async copyVolume(
    vmid: number,
    volume: GuestVolume,
    target: ParamsOf<'guest.migrate.send'>['target'],
    { signal, log }: CommandContext,
  ): Promise<void> {
    if (volume.format === 'subvol') throw new Error(`VM ${vmid}: volume ${volume.key} must be a qcow2 or raw image, not a subvol`);
    log(copyingToNode(volume, target.node));
    const destination = `driver=nbd,server.type=inet,server.host=${target.address},server.port=${target.nbdPort},export=${volume.key}`;
    try {
      await runChecked(
        'qemu-img',
        ['convert', '-n', '--target-is-zero', '-f', volume.format, '--target-image-opts', hostPath(this.host, volume.path), destination],
        { signal, onLine: log, timeoutMs: COPY_LIMIT_MS },
      );
    } catch (error) {
      throw new Error(`VM ${vmid}: could not copy volume ${volume.key}: ${(error as Error).message}`);
    }
  }

  /** The VM left: its volumes of `copy` and its files here go. */
  private async removeFromHere(vm: QemuVm, volumes: readonly GuestVolume[], context: CommandContext): Promise<void> {
    for (const volume of volumes) {
      await rm(hostPath(this.host, volume.path), { force: true });
      context.log(removingVolume('qemu', volume));
    }
    await removeRuntimeFiles(vm.files, true);
  }

  /**
   * Asks `check` every `everyMs` (POLL_MS) on a connection of its own, so that list() gets the
   * monitor between, until it gives a value; past `timeoutMs`, when given, fails saying `what`.
   */
  private async poll<T>(
    vm: QemuVm,
    what: string,
    context: Pick<CommandContext, 'signal'>,
    check: (qmp: QmpClient) => Promise<T | undefined>,
    options: { timeoutMs?: number; everyMs?: number } = {},
  ): Promise<T> {
    const { timeoutMs, everyMs = POLL_MS } = options;
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    for (;;) {
      const value = await vm.qmp(what, context.signal, check);
      if (value !== undefined) return value;
      if (deadline !== undefined && Date.now() > deadline) throw new Error(`VM ${vm.vmid}: ${what} within ${(timeoutMs ?? 0) / 1000} s`);
      await sleep(everyMs, undefined, { signal: context.signal });
    }
  }

  private vmOf(guest: GuestSpec): QemuVm {
    if (guest.type !== 'qemu') throw new Error(`${guestLabel(guest.type, guest.vmid)}: the native driver migrates VMs only`);
    return new QemuVm(this.host, guest.vmid);
  }
}

/** The volumes that move. */
function copied(guest: GuestSpec, copy: readonly string[]): GuestVolume[] {
  return copy.map((key) => volumeOf(guest, key));
}

/** QEMU's migration address: an IPv6 address in brackets. */
function tcpUri(address: string, port: number): string {
  return `tcp:${address.includes(':') ? `[${address}]` : address}:${port}`;
}

async function jobsOf(qmp: QmpClient, ids: ReadonlySet<string>): Promise<JobStatus[]> {
  return ((await qmp.execute('query-jobs')) as JobStatus[]).filter((job) => ids.has(job.id));
}

/** Dismisses the jobs that ended; true once all of them did. A job that ended with an error fails with it, unless `failed` is `ignore` (a cleanup's cancel). */
async function endJobs(qmp: QmpClient, ids: ReadonlySet<string>, failed: 'throw' | 'ignore' = 'throw'): Promise<boolean> {
  const jobs = await jobsOf(qmp, ids);
  for (const job of jobs.filter((candidate) => candidate.status === 'concluded')) {
    await qmp.execute('job-dismiss', { id: job.id });
    if (job.error !== undefined && failed === 'throw') throw new Error(`${job.id}: ${job.error}`);
  }
  return jobs.every((job) => job.status === 'concluded');
}

/** Whether the QEMU of `pid` was started to receive a migration. */
async function startedForMigration(pid: number): Promise<boolean> {
  const cmdline = await readFile(`${PROC_ROOT}/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0').includes('-incoming');
}
