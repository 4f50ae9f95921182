import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { AgentHub } from '../agents/agent-hub.js';
import { DatabaseNotifications } from '../database/notifications.js';
import { recordEvent } from '../events/record-event.js';
import type { GuestRow } from '../inventory/guests/guest.entity.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { GuestsRepository } from '../inventory/guests/guests.repository.js';
import { LOGGER } from '../logging/loggers.js';
import { TaskRunner } from '../tasks/task-runner.js';
import { TASK_ENDS_CHANNEL, TasksRepository } from '../tasks/tasks.repository.js';

/**
 * Every guest lock is held by a task (`lock_task`), whose work releases it. A lock whose task has
 * ended without releasing it (its replica stopped or was killed, its release could not be written)
 * or whose task is missing is stale, and is reconciled with what the guest's agent reports, by the
 * replica that holds that agent, once the task's work no longer runs there:
 *
 * - a `create` or `clone` lock (a create, clone or restore): while the agent reports that it still
 *   makes the guest, nothing; then a guest the agent's runtime report lists is unlocked, with the
 *   `vm-create` event its making did not write; one it does not list was never made, and its row
 *   goes (its pool membership with it);
 * - a `backup` lock goes with a `backup-end` event of status `error`;
 * - any other lock goes.
 *
 * A guest whose node's agent this replica does not hold keeps its lock until the agent is
 * welcomed here and reports. Reconciliation follows each task's end (`corral_tasks`, also the ends
 * written for replicas gone), each task's work settling here, and each runtime report of an agent
 * held here where the guest view shows a lock on its node; an agent's first report comes as it is
 * welcomed, so after a start-up every lock left by a crash is reconciled as its node's agent comes back.
 */
@Injectable()
export class StaleLocks {
  /** The last runtime report of each node whose agent this replica holds: the vmids it lists, and those it is making. */
  private readonly reported = new Map<string, { readonly listed: ReadonlyMap<number, unknown>; readonly making: ReadonlySet<number> }>();
  /** One reconciliation at a time, in the order they were asked for. */
  private queue = Promise.resolve();

  constructor(
    private readonly repository: GuestsRepository,
    private readonly view: GuestView,
    private readonly tasks: TasksRepository,
    private readonly runner: TaskRunner,
    private readonly hub: AgentHub,
    notifications: DatabaseNotifications,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    // An end missed with the notification connection (null): every lock is looked at.
    notifications.subscribe(TASK_ENDS_CHANNEL, (upid) =>
      this.reconcile(() => (upid === null ? this.repository.locked() : this.repository.lockedBy(upid))),
    );
    runner.onWorkEnd((upid) => this.reconcile(() => this.repository.lockedBy(upid)));
    hub.onGuests({
      runtime: async (node, { guests, making }) => {
        this.reported.set(node, { listed: guests, making });
        // The database is read only where the view shows a lock: a thousand agents' reports must not each make a query.
        if (this.view.hasLockOn(node)) this.reconcile(() => this.repository.locked(node));
      },
      event: async () => true,
    });
  }

  /** Reconciles the stale locks among the guests `rows` reads, after the reconciliations before. */
  private reconcile(rows: () => Promise<GuestRow[]>): void {
    this.queue = this.queue
      .then(async () => {
        const held = (await rows()).filter(
          (row) => row.lock !== null && this.hub.holds(row.node) && (row.lockTask === null || !this.runner.isWorking(row.lockTask)),
        );
        const running = await this.tasks.running(held.flatMap((row) => (row.lockTask !== null ? [row.lockTask] : [])));
        for (const row of held)
          if (row.lockTask === null || !running.has(row.lockTask))
            await this.settle(row).catch((error: unknown) =>
              this.logger.warn({ err: error, vmid: row.vmid }, 'cannot reconcile the stale lock of a guest'),
            );
      })
      .catch((error: unknown) => this.logger.warn({ err: error }, 'cannot read the stale guest locks'));
  }

  /**
   * Reconciles one stale lock with the agent's last report; a guest being made waits for a report,
   * and for the end of its making where the agent still runs it (its task ended with a replica
   * killed while the agent made the guest).
   */
  private async settle(row: GuestRow): Promise<void> {
    const { vmid, node, lock, lockTask } = row;
    const making = lock === 'create' || lock === 'clone';
    if (making) {
      const report = this.reported.get(node);
      if (report === undefined || report.making.has(vmid)) return;
      if (!report.listed.has(vmid)) {
        if (await this.repository.remove(vmid, { lockTask })) {
          this.logger.warn({ vmid, node, lock, task: lockTask }, 'removed a guest whose making ended before its agent made it');
          await this.view.reload(vmid);
        }
        return;
      }
    }
    const ended = lock === 'backup' && lockTask !== null ? await this.tasks.get(lockTask) : null;
    await this.repository.update(vmid, async (current, db) => {
      if (current.lock !== lock || current.lockTask !== lockTask) return {};
      if (making) await recordEvent(db, { event: 'vm-create', node, vmid, details: { type: current.type } });
      if (lock === 'backup')
        await recordEvent(db, {
          event: 'backup-end',
          node,
          vmid,
          details: { status: 'error', error: ended?.exitstatus ?? 'the task of the backup is missing' },
        });
      return { lock: null };
    });
    this.logger.warn({ vmid, node, lock, task: lockTask }, 'released a guest lock whose task had ended');
    await this.view.reload(vmid);
  }
}
