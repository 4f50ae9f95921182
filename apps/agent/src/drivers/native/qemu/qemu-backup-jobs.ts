import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandContext } from '../../command-context.js';
import { PROGRESS_EVERY_MS, type JobStatus } from './migration-status.js';
import { namedNodes } from './qemu-nbd-exports.js';
import type { QemuVm } from './qemu-vm.js';
import type { QmpClient } from './qmp-client.js';

/*
 * A backup of a running VM's disks without stopping it (vzdump's `snapshot` mode): QEMU's backup
 * job copies a drive into a new image while the guest goes on, and a guest write to a block not yet
 * copied first copies the old block (copy-before-write), so the image holds the drive as it was
 * when the job started. The jobs of all disks start in one QMP transaction: one point in time for
 * the whole VM.
 */

/** How often the jobs are asked how far they are, each time on a connection of its own so that list() gets the monitor between. */
const POLL_MS = 250;
/** The cleanup after a failed or stopped backup: cancelling takes QEMU moments, unless it hangs. */
const CLEANUP_MS = 30_000;
const MiB = 1024 * 1024;

/** One drive the VM has open (`drive-<key>`), and the new qcow2 image of its size that receives its copy. */
export interface LiveDisk {
  readonly key: string;
  readonly target: string;
}

const jobId = (key: string) => `backup-${key}`;
const targetNode = (key: string) => `backup-target-${key}`;

/** The virtual size of each drive the VM has open, by its key (`scsi0` for `drive-scsi0`). */
export async function driveSizes(qmp: QmpClient): Promise<Map<string, number>> {
  const drives = (await qmp.execute('query-block')) as { device?: unknown; inserted?: { image?: { 'virtual-size'?: unknown } } }[];
  return new Map(
    drives.flatMap(({ device, inserted }) => {
      const size = inserted?.image?.['virtual-size'];
      return typeof device === 'string' && device.startsWith('drive-') && typeof size === 'number'
        ? [[device.slice('drive-'.length), size] as const]
        : [];
    }),
  );
}

/**
 * Copies the drives into their targets while the VM runs (or stays paused), logging the progress
 * as vzdump's `status:` lines. On failure or abort the jobs are cancelled and the targets closed,
 * and the VM goes on as before.
 */
export async function copyLive(vm: QemuVm, disks: readonly LiveDisk[], { signal, log }: CommandContext): Promise<void> {
  const ids = new Set(disks.map((disk) => jobId(disk.key)));
  try {
    await vm.qmp('could not start the backup', signal, async (qmp) => {
      for (const { key, target } of disks)
        await qmp.execute('blockdev-add', { driver: 'qcow2', 'node-name': targetNode(key), file: { driver: 'file', filename: target } });
      const actions = disks.map(({ key }) => ({
        type: 'blockdev-backup',
        data: { 'job-id': jobId(key), device: `drive-${key}`, target: targetNode(key), sync: 'full', 'auto-dismiss': false },
      }));
      await qmp.execute('transaction', { actions });
    });
    log(`INFO: started backup task (${disks.map(({ key }) => `drive-${key}`).join(', ')})`);
    const progress = backupProgress(log);
    while (!progress(await vm.qmp('backup failed', signal, (qmp) => jobsOf(qmp, ids)))) await sleep(POLL_MS, undefined, { signal });
    await vm.qmp('could not end the backup', signal, (qmp) => closeJobs(qmp, disks));
  } catch (error) {
    await cancel(vm, disks).catch((cleanup: Error) => log(`${cleanup.message} (cleaning up after the failed backup)`));
    throw error;
  }
}

/** Each call gets the jobs' entries and says whether all of them are done; a job that failed, or is gone, fails. */
function backupProgress(log: (line: string) => void): (jobs: readonly JobStatus[]) => boolean {
  const started = Date.now();
  let lastLine = started;
  return (jobs) => {
    for (const job of jobs) if (job.error !== undefined) throw new Error(`${job.id}: ${job.error}`);
    const done = jobs.reduce((sum, job) => sum + job['current-progress'], 0);
    const total = jobs.reduce((sum, job) => sum + job['total-progress'], 0);
    const status = `${total === 0 ? 100 : Math.floor((done * 100) / total)}% (${mib(done)} of ${mib(total)})`;
    if (jobs.every((job) => job.status === 'concluded')) {
      log(`INFO: status: ${status}`);
      log(`INFO: transferred ${mib(total)} in ${Math.round((Date.now() - started) / 1000)} seconds`);
      return true;
    }
    if (Date.now() - lastLine >= PROGRESS_EVERY_MS) {
      lastLine = Date.now();
      log(`INFO: status: ${status}`);
    }
    return false;
  };
}

async function jobsOf(qmp: QmpClient, ids: ReadonlySet<string>): Promise<JobStatus[]> {
  const jobs = ((await qmp.execute('query-jobs')) as JobStatus[]).filter((job) => ids.has(job.id));
  const gone = [...ids].filter((id) => !jobs.some((job) => job.id === id));
  if (gone.length > 0) throw new Error(`the backup job ${gone.join(', ')} is gone`);
  return jobs;
}

/** Dismisses the concluded jobs and closes the targets that are open. */
async function closeJobs(qmp: QmpClient, disks: readonly LiveDisk[]): Promise<void> {
  const ids = new Set(disks.map((disk) => jobId(disk.key)));
  for (const job of (await qmp.execute('query-jobs')) as JobStatus[])
    if (ids.has(job.id) && job.status === 'concluded') await qmp.execute('job-dismiss', { id: job.id });
  const open = await namedNodes(qmp);
  for (const { key } of disks) if (open.has(targetNode(key))) await qmp.execute('blockdev-del', { 'node-name': targetNode(key) });
}

/** Cancels the jobs that still run, waits until they end, then closes them; on a signal of its own, as the request's may have fired. */
async function cancel(vm: QemuVm, disks: readonly LiveDisk[]): Promise<void> {
  const signal = AbortSignal.timeout(CLEANUP_MS);
  const ids = new Set(disks.map((disk) => jobId(disk.key)));
  const running = async (qmp: QmpClient) =>
    ((await qmp.execute('query-jobs')) as JobStatus[]).filter((job) => ids.has(job.id) && job.status !== 'concluded');
  await vm.qmp('could not cancel the backup', signal, async (qmp) => {
    // A job that is finishing by itself (waiting, pending) refuses the cancel: it concludes anyway, and is closed below.
    for (const job of await running(qmp)) await qmp.execute('job-cancel', { id: job.id }).catch(() => undefined);
  });
  while ((await vm.qmp('cancelling the backup failed', signal, running)).length > 0) await sleep(POLL_MS, undefined, { signal });
  await vm.qmp('could not close the backup', signal, (qmp) => closeJobs(qmp, disks));
}

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}
