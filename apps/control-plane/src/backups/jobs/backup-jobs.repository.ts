import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NodeRow } from '../../inventory/nodes/node.entity.js';
import { PoolRow } from '../../inventory/pools/pool.entity.js';
import { StorageRow } from '../../inventory/storage/storage.entity.js';
import { BackupJobRunRow } from './backup-job-run.entity.js';
import { BackupJobRow } from './backup-job.entity.js';

/** The backup_jobs and backup_job_runs tables, and the existence checks of what a job names. */
@Injectable()
export class BackupJobsRepository {
  constructor(private readonly dataSource: DataSource) {}

  all(): Promise<BackupJobRow[]> {
    return this.dataSource.manager.find(BackupJobRow, { order: { id: 'ASC' } });
  }

  enabled(): Promise<BackupJobRow[]> {
    return this.dataSource.manager.find(BackupJobRow, { where: { enabled: true }, order: { id: 'ASC' } });
  }

  find(id: string): Promise<BackupJobRow | null> {
    return this.dataSource.manager.findOneBy(BackupJobRow, { id });
  }

  /** A new job; one of that id is a unique violation. */
  async insert(job: BackupJobRow): Promise<void> {
    await this.dataSource.manager.insert(BackupJobRow, job);
  }

  /**
   * Changes a job in one transaction, its row locked meanwhile: `change` gets the current row
   * (null: there is none) and returns the new one to save.
   */
  update(id: string, change: (current: BackupJobRow | null) => BackupJobRow | Promise<BackupJobRow>): Promise<BackupJobRow> {
    return this.dataSource.transaction(async (db) => {
      const next = await change(await db.findOne(BackupJobRow, { where: { id }, lock: { mode: 'pessimistic_write' } }));
      await db.save(BackupJobRow, next);
      return next;
    });
  }

  /** Deletes a job and its runs' records; false when there was none. */
  async remove(id: string): Promise<boolean> {
    const result = await this.dataSource.manager.delete(BackupJobRow, { id });
    return (result.affected ?? 0) > 0;
  }

  /** The last slot each job ran on each node: job id → node → slot. */
  async lastSlots(): Promise<Map<string, Map<string, Date>>> {
    const slots = new Map<string, Map<string, Date>>();
    for (const run of await this.dataSource.manager.find(BackupJobRunRow)) {
      slots.set(run.jobId, (slots.get(run.jobId) ?? new Map<string, Date>()).set(run.node, run.lastSlot));
    }
    return slots;
  }

  /**
   * Claims the slot `slot` of the job on `node`, while the job is still enabled with this schedule
   * and the slot is after its `dueAfter`, and calls `claimed` with the job as it is now, inside the
   * transaction, before it commits. Resolves false, calling nothing, when the slot (or a later
   * one) was claimed already or the job changed.
   *
   * Why this is exactly once across replicas: the record of the node's last slot only moves
   * forward, so of replicas racing for a slot the first writes it and the others wait on its row
   * until that commits, then find the slot taken. The claim commits only after the run has
   * started: a replica that dies in between rolls it back, and the slot is run by another, or by
   * this one when it restarts, instead of being lost. Per-row claims rather than a scheduler
   * elected by an advisory lock: every replica schedules the nodes it holds, and none has to notice
   * another's death.
   */
  claim(
    job: Pick<BackupJobRow, 'id' | 'schedule'>,
    node: string,
    slot: Date,
    claimed: (job: BackupJobRow) => Promise<void>,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (db) => {
      const rows = (await db.query(
        `INSERT INTO "backup_job_runs" ("job_id", "node", "last_slot")
         SELECT "id", $2, $3 FROM "backup_jobs" WHERE "id" = $1 AND "enabled" AND "schedule" = $4 AND "due_after" < $3
         ON CONFLICT ("job_id", "node") DO UPDATE SET "last_slot" = EXCLUDED."last_slot" WHERE "backup_job_runs"."last_slot" < EXCLUDED."last_slot"
         RETURNING "job_id"`,
        [job.id, node, slot, job.schedule],
      )) as unknown[];
      if (rows.length === 0) return false;
      await claimed(await db.findOneByOrFail(BackupJobRow, { id: job.id }));
      return true;
    });
  }

  storage(name: string): Promise<StorageRow | null> {
    return this.dataSource.manager.findOneBy(StorageRow, { storage: name });
  }

  poolExists(poolid: string): Promise<boolean> {
    return this.dataSource.manager.exists(PoolRow, { where: { poolid } });
  }

  nodeExists(name: string): Promise<boolean> {
    return this.dataSource.manager.exists(NodeRow, { where: { name } });
  }
}
