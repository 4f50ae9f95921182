/*
 * What QEMU answers about a migration under way (QMP `query-migrate`, `query-jobs`), turned into
 * the task log lines an operator follows, as PVE's "migration active, transferred ..." lines.
 */

/** `query-migrate`'s answer, the fields read here. */
export interface MigrationStatus {
  readonly status?: string;
  readonly 'error-desc'?: string;
  readonly ram?: { readonly transferred?: number; readonly total?: number };
  readonly downtime?: number;
  /** The target's listening address of an incoming migration. */
  readonly 'socket-address'?: readonly { readonly port?: string }[];
}

/** One entry of `query-jobs`. */
export interface JobStatus {
  readonly id: string;
  readonly status: string;
  readonly 'current-progress': number;
  readonly 'total-progress': number;
  readonly error?: string;
}

/** A progress line at most this often; changes of state are logged at once. */
export const PROGRESS_EVERY_MS = 2000;

const MiB = 1024 * 1024;
const mib = (bytes: number | undefined) => `${((bytes ?? 0) / MiB).toFixed(1)} MiB`;

/**
 * Follows the mirror jobs `ids` (one per disk) until all of them are ready (in sync, following the
 * VM's writes): each call gets the jobs' entries and says whether they are. A job that ended with
 * an error, or that is gone, fails.
 */
export function mirrorProgress(
  ids: ReadonlySet<string>,
  log: (line: string) => void,
  now: () => number = Date.now,
): (jobs: readonly JobStatus[]) => boolean {
  const ready = new Set<string>();
  let lastLine = now();
  return (jobs) => {
    const byId = new Map(jobs.map((job) => [job.id, job]));
    for (const id of ids) {
      const job = byId.get(id);
      if (job === undefined) throw new Error(`the mirror job ${id} is gone`);
      if (job.error !== undefined) throw new Error(`${id}: ${job.error}`);
      if (job.status === 'concluded') throw new Error(`${id} ended before it was in sync`);
      if (job.status === 'ready' && !ready.has(id)) {
        ready.add(id);
        log(`${id}: in sync (${mib(job['total-progress'])})`);
      }
    }
    if (ready.size === ids.size) return true;
    if (now() - lastLine >= PROGRESS_EVERY_MS) {
      lastLine = now();
      for (const id of ids) {
        const job = byId.get(id);
        if (job !== undefined && !ready.has(id)) log(`${id}: ${mib(job['current-progress'])} of ${mib(job['total-progress'])}`);
      }
    }
    return false;
  };
}

/** Whether the migration failed or was cancelled (on either side). */
export function ended(answer: MigrationStatus): boolean {
  return answer.status === 'failed' || answer.status === 'cancelled';
}

/** The error of a migration that ended without completing: QEMU's reason when it gives one. */
export function migrationError(answer: MigrationStatus): Error {
  return new Error(answer['error-desc'] ?? (answer.status === 'cancelled' ? 'the migration was cancelled' : 'the migration failed'));
}

/**
 * Follows `query-migrate` on the source: each call gets its answer and resolves with the status
 * (`setup`, `active`, `pre-switchover`, `device`, `completed`, ...). A failed or cancelled migration
 * fails with QEMU's reason.
 */
export function migrationProgress(log: (line: string) => void, now: () => number = Date.now): (status: MigrationStatus) => string {
  let last: string | undefined;
  let lastLine = now();
  return (answer) => {
    const status = answer.status ?? 'none';
    if (ended(answer)) throw migrationError(answer);
    const memory = `${mib(answer.ram?.transferred)} of ${mib(answer.ram?.total)} VM-state transferred`;
    if (status !== last) {
      last = status;
      lastLine = now();
      log(
        status === 'completed'
          ? `migration completed, ${memory}${answer.downtime === undefined ? '' : `, downtime ${answer.downtime} ms`}`
          : `migration status: ${status}`,
      );
    } else if (now() - lastLine >= PROGRESS_EVERY_MS) {
      lastLine = now();
      log(`migration ${status}, ${memory}`);
    }
    return status;
  };
}
