import { nextRun, parseCalendarEvent } from '@corral/pve-formats';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { SYSTEM_CALLER } from '../../http/principal.js';
import { AccessState } from '../../access/state/access-state.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { LOGGER } from '../../logging/loggers.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import { selects } from '../backup-selection.js';
import { vzdumpOptionsOf, type VzdumpOptions } from '../vzdump-params.js';
import { VzdumpService } from '../vzdump.service.js';
import type { BackupJobRow } from './backup-job.entity.js';
import { BackupJobsRepository } from './backup-jobs.repository.js';
import { decide, type JobDecision } from './job-schedule.js';
import { SCHEDULER_CLOCK, type SchedulerClock } from './scheduler-clock.js';

/** How often every replica looks for due jobs, besides waking at the next slot it knows of: a job made on another replica runs at most this late. */
const TICK_MS = 5000;

/** A job's run as it stands: its options, the guests it selects on each node, and the listed guests that do not exist. */
interface Plan {
  readonly options: VzdumpOptions;
  readonly guests: ReadonlyMap<string, readonly number[]>;
  readonly missing: readonly number[];
}

/**
 * Runs the backup jobs on their schedules (docs/backups.md "Backup jobs"). Every replica runs this
 * loop for the nodes whose agents it holds, as each PVE node runs its own part of a job: a due slot
 * is claimed per job and node in the database (BackupJobsRepository.claim), so it runs once even
 * while an agent moves between replicas, and a node that was offline at a slot catches it up when
 * its agent is back. A node's part is one vzdump task for the job's guests on it.
 */
@Injectable()
export class BackupJobScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** The slot each job's offline node was last logged for (`<job> <node>`), so a missed slot is logged once. */
  private readonly loggedOffline = new Map<string, number>();

  constructor(
    private readonly repository: BackupJobsRepository,
    private readonly vzdump: VzdumpService,
    private readonly guests: GuestView,
    private readonly nodes: NodeView,
    private readonly hub: AgentHub,
    private readonly access: AccessState,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_CLOCK) private readonly clock: SchedulerClock,
  ) {}

  /** The first pass catches up on slots missed while no control plane ran. */
  onApplicationBootstrap(): void {
    // An agent welcomed here may have missed slots while it (or the control plane) was away.
    this.hub.onOnline(() => this.wake());
    this.wake();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.pass;
  }

  /** Looks for due jobs now (after the pass under way, if one is): at start, when an agent comes, and when a job was made or changed here. */
  wake(): void {
    if (this.stopped) return;
    if (this.pass !== null) {
      this.again = true;
      return;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.pass = this.loop();
  }

  /**
   * One pass over the enabled jobs and the nodes this replica holds: claims each due slot and
   * runs it (or, a missed slot of a job without `repeat-missed`, skips it). Resolves with the
   * next slot to look at, null if none.
   */
  async runDue(): Promise<Date | null> {
    const now = this.clock.now();
    const lastSlots = await this.repository.lastSlots();
    let next: Date | null = null;
    for (const job of await this.repository.enabled()) {
      try {
        const due = await this.runJob(job, lastSlots.get(job.id) ?? new Map<string, Date>(), now);
        if (due !== null && (next === null || due < next)) next = due;
      } catch (error) {
        this.logger.error({ err: error, job: job.id }, 'backup job: cannot schedule it');
      }
    }
    return next;
  }

  private async loop(): Promise<void> {
    let next: Date | null = null;
    try {
      next = await this.runDue();
    } catch (error) {
      this.logger.warn({ err: error }, 'backup jobs: cannot read the jobs; trying again');
    }
    this.pass = null;
    if (this.stopped) return;
    if (this.again) {
      this.again = false;
      this.wake();
      return;
    }
    const untilNext = next === null ? TICK_MS : next.getTime() - this.clock.now().getTime();
    this.timer = setTimeout(() => this.wake(), Math.max(0, Math.min(TICK_MS, untilNext)));
    this.timer.unref();
  }

  /** Claims and runs or skips the job's due slot on each node held here; resolves with the job's next slot. */
  private async runJob(job: BackupJobRow, lastSlots: ReadonlyMap<string, Date>, now: Date): Promise<Date | null> {
    const event = parseCalendarEvent(job.schedule);
    const plan = await this.plan(job);
    let next: Date | null = null;
    const earliest = (slot: Date | null) => (slot !== null && (next === null || slot < next) ? slot : next);
    for (const node of job.node !== null ? [job.node] : this.nodes.list().map((state) => state.name)) {
      const last = lastSlots.get(node);
      const dueAfter = last !== undefined && last > job.dueAfter ? last : job.dueAfter;
      const decision = decide({ event, dueAfter, repeatMissed: job.repeatMissed }, now, this.clock.timeZone);
      if (decision.kind === 'wait') {
        next = earliest(decision.until);
      } else if (this.hub.holds(node)) {
        // Also on a node without guests of the job, so that a guest that comes later does not catch up slots from before it.
        await this.repository.claim(job, node, decision.slot, (current) => this.runSlot(current, node, decision));
        next = earliest(nextRun(event, decision.slot, this.clock.timeZone));
      } else if (plan.guests.has(node) && this.nodes.get(node)?.online !== true) {
        this.logOffline(job, node, decision.slot);
      }
    }
    return next;
  }

  /** The job's part on `node` of a slot claimed: its vzdump task when the job has guests there. */
  private async runSlot(job: BackupJobRow, node: string, decision: Exclude<JobDecision, { kind: 'wait' }>): Promise<void> {
    const log = this.logger.child({ job: job.id, node, slot: decision.slot.toISOString() });
    if (decision.kind === 'skip')
      return log.info('backup job: skipped a run missed while the node or the control plane was away (repeat-missed=0)');
    const plan = await this.plan(job);
    if (!plan.guests.has(node)) return;
    if (this.loggedOffline.delete(`${job.id} ${node}`)) log.info('backup job: the node is back; running the slot it missed');
    if (plan.missing.length > 0) log.warn({ missing: plan.missing }, 'backup job: some of its guests do not exist');
    try {
      const upid = await this.vzdump.start(node, plan.options, SYSTEM_CALLER, job.id);
      log.info({ upid }, 'backup job: started');
    } catch (error) {
      log.warn({ err: error }, 'backup job: cannot start the backup');
    }
  }

  /**
   * The job's options and its guests by node (only `node`'s, when the job names one). A listed
   * guest that does not exist is left out of the options, so that the others are still backed up.
   */
  private async plan(job: BackupJobRow): Promise<Plan> {
    let options = vzdumpOptionsOf(job.params);
    const { selection } = options;
    const missing = selection.kind === 'vmids' ? selection.vmids.filter((vmid) => this.guests.get(vmid) === undefined) : [];
    if (selection.kind === 'vmids' && missing.length > 0) {
      options = { ...options, selection: { kind: 'vmids', vmids: selection.vmids.filter((vmid) => !missing.includes(vmid)) } };
    }
    const { memberPools } = await this.access.current();
    const guests = new Map<string, number[]>();
    for (const { row } of this.guests.list()) {
      if (job.node !== null && row.node !== job.node) continue;
      if (selects(options.selection, row.vmid, memberPools.get(`/vms/${row.vmid}`) ?? []))
        guests.set(row.node, [...(guests.get(row.node) ?? []), row.vmid]);
    }
    return { options, guests, missing };
  }

  /** An offline node with guests of the job missed a slot: said once per slot. With `repeat-missed`, the node runs it when it is back. */
  private logOffline(job: BackupJobRow, node: string, slot: Date): void {
    const key = `${job.id} ${node}`;
    if (this.loggedOffline.get(key) === slot.getTime()) return;
    this.loggedOffline.set(key, slot.getTime());
    this.logger.warn(
      { job: job.id, node, slot: slot.toISOString() },
      'backup job: the node is offline; its guests are not backed up until it is back',
    );
  }
}
