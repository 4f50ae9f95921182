import { parseCalendarEvent, parsePruneOptions } from '@corral/pve-formats';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import { badParam, isUniqueViolation } from '../../errors/resource-errors.js';
import type { ParamsOf } from '../../http/endpoint.js';
import { vzdumpOptionsOf, type VzdumpParams } from '../vzdump-params.js';
import type { BackupJobRow } from './backup-job.entity.js';
import { BackupJobScheduler } from './backup-job-scheduler.js';
import type { BackupJobEndpoints, BackupJobEntry } from './backup-jobs.endpoints.js';
import { BackupJobsRepository } from './backup-jobs.repository.js';
import { nextRunOf } from './job-schedule.js';
import { SCHEDULER_CLOCK, type SchedulerClock } from './scheduler-clock.js';

type CreateParams = ParamsOf<BackupJobEndpoints['create']>;
type UpdateParams = ParamsOf<BackupJobEndpoints['update']>;

/** The names a job refers to, checked when given. */
interface Names {
  readonly storage?: string | undefined;
  readonly pool?: string | undefined;
  readonly node?: string | undefined;
}

/**
 * The backup jobs of `/cluster/backup`. A job's
 * vzdump parameters are checked as a run's are (vzdumpOptionsOf), and the storage, pool and node
 * it names must exist when it is written; the scheduler is woken after each change.
 */
@Injectable()
export class BackupJobsService {
  constructor(
    private readonly repository: BackupJobsRepository,
    private readonly scheduler: BackupJobScheduler,
    @Inject(SCHEDULER_CLOCK) private readonly clock: SchedulerClock,
  ) {}

  async list(): Promise<BackupJobEntry[]> {
    const now = this.clock.now();
    const lastSlots = await this.repository.lastSlots();
    return (await this.repository.all()).map((job) => this.entryOf(job, lastSlots.get(job.id), now));
  }

  async get(id: string): Promise<BackupJobEntry> {
    const job = await this.repository.find(id);
    if (!job) throw missing(id);
    return this.entryOf(job, (await this.repository.lastSlots()).get(job.id), this.clock.now());
  }

  async create(params: CreateParams): Promise<void> {
    const { id = randomUUID(), schedule, enabled, node, comment, 'repeat-missed': repeatMissed, ...vzdump } = params;
    const runParams = defined(vzdump) as VzdumpParams;
    const options = vzdumpOptionsOf(runParams);
    await this.checkNames({ storage: options.storage, pool: runParams.pool, node }, node);
    const job: BackupJobRow = {
      id,
      schedule,
      enabled: enabled ?? true,
      node: node ?? null,
      comment: comment || null,
      repeatMissed: repeatMissed ?? true,
      params: runParams,
      // Slots before the job's creation are not its to run.
      dueAfter: this.clock.now(),
    };
    try {
      await this.repository.insert(job);
    } catch (error) {
      // PVE answers 500 with these words; Corral's status for a duplicate is 409.
      if (isUniqueViolation(error)) throw new ApiError('ALREADY_EXISTS', `Job '${id}' already exists`);
      throw error;
    }
    this.scheduler.wake();
  }

  /**
   * Sets what is given and resets what `delete` names (PVE's update_job). A new schedule, or a
   * change of `enabled`, counts slots from now, as PVE's `updated` time does.
   */
  async update(params: UpdateParams): Promise<void> {
    const { id, delete: deleted = [], schedule, enabled, node, comment, 'repeat-missed': repeatMissed, ...vzdump } = params;
    const given = Object.keys(defined(params));
    const both = deleted.find((key) => given.includes(key));
    if (both !== undefined) throw badParam('delete', `cannot set and delete '${both}' at once`);
    const now = this.clock.now();
    await this.repository.update(id, async (current) => {
      if (!current) throw missing(id);
      const runParams = changedParams(current.params, defined(vzdump), deleted);
      const options = vzdumpOptionsOf(runParams);
      const next: BackupJobRow = {
        ...current,
        schedule: schedule ?? current.schedule,
        enabled: deleted.includes('enabled') ? true : (enabled ?? current.enabled),
        node: deleted.includes('node') ? null : (node ?? current.node),
        comment: deleted.includes('comment') ? null : comment !== undefined ? comment || null : current.comment,
        repeatMissed: deleted.includes('repeat-missed') ? true : (repeatMissed ?? current.repeatMissed),
        params: runParams,
      };
      // A new node must find the job's storage there too.
      await this.checkNames(
        { storage: vzdump.storage !== undefined || node !== undefined ? options.storage : undefined, pool: vzdump.pool, node },
        next.node,
      );
      if (next.schedule !== current.schedule || next.enabled !== current.enabled) next.dueAfter = now;
      return next;
    });
    this.scheduler.wake();
  }

  async remove(id: string): Promise<void> {
    if (!(await this.repository.remove(id))) throw missing(id);
  }

  /** Each name given must exist: a 400 naming its parameter. The storage must hold backups, on `node` if the job has one. */
  private async checkNames(names: Names, node: string | null | undefined): Promise<void> {
    if (names.storage !== undefined) {
      const storage = await this.repository.storage(names.storage);
      if (!storage) throw badParam('storage', `storage '${names.storage}' does not exist`);
      if (!storage.content.includes('backup'))
        throw badParam('storage', `storage '${names.storage}' does not hold backups (content 'backup')`);
      if (node && storage.nodes !== null && !storage.nodes.includes(node))
        throw badParam('storage', `storage '${names.storage}' is not available on node '${node}'`);
    }
    if (names.pool !== undefined && !(await this.repository.poolExists(names.pool)))
      throw badParam('pool', `pool '${names.pool}' does not exist`);
    if (names.node !== undefined && !(await this.repository.nodeExists(names.node)))
      throw badParam('node', `node '${names.node}' does not exist`);
  }

  /**
   * The job as PVE's `GET /cluster/backup` shows it: the keys given, and `next-run` while it is
   * enabled, counted from the latest slot it ran on any node (`lastSlots`, by node).
   */
  private entryOf(job: BackupJobRow, lastSlots: ReadonlyMap<string, Date> | undefined, now: Date): BackupJobEntry {
    const p = job.params;
    const dueAfter = new Date(Math.max(job.dueAfter.getTime(), ...[...(lastSlots?.values() ?? [])].map((slot) => slot.getTime())));
    const next = job.enabled
      ? nextRunOf({ event: parseCalendarEvent(job.schedule), dueAfter, repeatMissed: job.repeatMissed }, now, this.clock.timeZone)
      : null;
    return {
      id: job.id,
      type: 'vzdump',
      schedule: job.schedule,
      enabled: bit(job.enabled),
      ...(next !== null ? { 'next-run': Math.floor(next.getTime() / 1000) } : {}),
      'repeat-missed': bit(job.repeatMissed),
      ...(job.node !== null ? { node: job.node } : {}),
      ...(job.comment !== null ? { comment: job.comment } : {}),
      ...(p.vmid !== undefined ? { vmid: p.vmid.join(',') } : {}),
      ...(p.all === true ? { all: 1 as const } : {}),
      ...(p.pool !== undefined ? { pool: p.pool } : {}),
      ...(p.exclude !== undefined && p.exclude.length > 0 ? { exclude: p.exclude.join(',') } : {}),
      ...(p.storage !== undefined ? { storage: p.storage } : {}),
      ...(p.mode !== undefined ? { mode: p.mode } : {}),
      ...(p.compress !== undefined ? { compress: p.compress } : {}),
      ...(p['notes-template'] !== undefined ? { 'notes-template': p['notes-template'] } : {}),
      ...(p['prune-backups'] !== undefined ? { 'prune-backups': pruneObject(p['prune-backups']) } : {}),
      ...(p.remove !== undefined ? { remove: bit(p.remove) } : {}),
      ...(p.stopwait !== undefined ? { stopwait: p.stopwait } : {}),
    };
  }
}

/** The run's parameters after a change: a new selection replaces the old one (PVE's update_job), `deleted` ones go. */
function changedParams(current: VzdumpParams, change: Partial<VzdumpParams>, deleted: readonly string[]): VzdumpParams {
  const params: Record<string, unknown> = { ...current };
  const drop = (...keys: string[]) => keys.forEach((key) => delete params[key]);
  if (change.vmid !== undefined) drop('all', 'pool', 'exclude');
  if (change.all === true) drop('vmid', 'pool');
  if (change.pool !== undefined) drop('vmid', 'all');
  drop(...deleted);
  return { ...params, ...change } as VzdumpParams;
}

/** PVE shows a job's retention as an object of its options. */
function pruneObject(text: string): Record<string, number> {
  return Object.fromEntries(
    Object.entries(parsePruneOptions(text)).map(([key, value]) => [key, typeof value === 'boolean' ? bit(value) : value]),
  );
}

function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function bit(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}

function missing(id: string): ApiError {
  return new ApiError('NOT_FOUND', `backup job '${id}' does not exist`);
}
