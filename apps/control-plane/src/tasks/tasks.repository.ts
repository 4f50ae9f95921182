import { Injectable } from '@nestjs/common';
import { DataSource, In, IsNull, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import { TaskLogRow } from './task-log.entity.js';
import { TaskRow } from './task.entity.js';
import { parseUpid } from './upid.js';

/** Notified with a task's UPID when it ends, at the commit that ends it. */
export const TASK_ENDS_CHANNEL = 'corral_tasks';
/** Notified with `{ upid, by }` when a task running on another replica is to be stopped. */
export const TASK_STOPS_CHANNEL = 'corral_task_stops';

/** PVE's classes of a task's end status (`statusfilter`); a running task is `unknown`. */
export type TaskStatusClass = 'ok' | 'warning' | 'error' | 'unknown';

/** PVE's end status of a task that ended with warnings: `WARNINGS: <count>`. */
const WARNINGS_PATTERN = '^WARNINGS: [0-9]+$';
const WARNINGS = `'${WARNINGS_PATTERN}'`;
const WARNINGS_STATUS = new RegExp(WARNINGS_PATTERN);
const STATUS_CLASS_SQL: Record<TaskStatusClass, string> = {
  ok: `t.exitstatus = 'OK'`,
  warning: `t.exitstatus ~ ${WARNINGS}`,
  error: `t.exitstatus <> 'OK' AND t.exitstatus !~ ${WARNINGS}`,
  unknown: 't.endtime IS NULL',
};

/** Which tasks a list shows; absent fields do not filter. */
export interface TaskQuery {
  readonly node?: string;
  /** Only the tasks of this exact caller (a userid, or a token's full id). */
  readonly owner?: string;
  /** Only callers whose name contains this, in any case. */
  readonly userLike?: string;
  readonly type?: string;
  readonly id?: string;
  /** Started at or after / at or before, in epoch seconds. */
  readonly since?: number;
  readonly until?: number;
  readonly running: boolean;
  readonly finished: boolean;
  readonly statuses?: readonly TaskStatusClass[];
}

/** Told of each task this replica writes as started, and of each it writes as ended (its status as PVE classes it). */
export interface TaskWrites {
  started(type: string): void;
  ended(type: string, status: Exclude<TaskStatusClass, 'unknown'>): void;
}

/** The tasks, task_logs and replicas tables. */
@Injectable()
export class TasksRepository {
  private readonly watchers: TaskWrites[] = [];

  constructor(private readonly dataSource: DataSource) {}

  /** Follows the starts and ends this replica writes (the metrics count them). */
  watch(watcher: TaskWrites): void {
    this.watchers.push(watcher);
  }

  /** Inserts a running task, with what `alongside` writes in the same transaction (nothing of either when it throws). */
  async insert(task: Omit<TaskRow, 'endtime' | 'exitstatus'>, alongside?: (db: EntityManager) => Promise<void>): Promise<void> {
    await this.dataSource.transaction(async (db) => {
      await db.insert(TaskRow, { ...task, endtime: null, exitstatus: null });
      await alongside?.(db);
    });
    for (const watcher of this.watchers) watcher.started(task.type);
  }

  /** Those of `upids` that are tasks still running (not ended, and not missing). */
  async running(upids: readonly string[]): Promise<Set<string>> {
    if (upids.length === 0) return new Set();
    const rows = await this.dataSource.manager.find(TaskRow, {
      select: { upid: true },
      where: { upid: In([...upids]), endtime: IsNull() },
    });
    return new Set(rows.map((row) => row.upid));
  }

  /** Appends lines; a line number already there (a re-sent log frame) is kept as it was. */
  async appendLog(upid: string, lines: readonly { n: number; t: string }[]): Promise<void> {
    if (lines.length === 0) return;
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(TaskLogRow)
      .values(lines.map((line) => ({ upid, ...line })))
      .orIgnore()
      .execute();
  }

  /** Ends a running task with `OK` or the error text; a task already ended stays as it ended. */
  async end(upid: string, exitstatus: string): Promise<void> {
    await this.endWhere('"upid" = $3', [upid], exitstatus);
  }

  /** The running tasks of replicas unseen for `goneS` seconds (or never seen); those replicas are forgotten. */
  async orphaned(goneS: number): Promise<string[]> {
    await this.dataSource.query(`DELETE FROM "replicas" WHERE "seen" <= now() - make_interval(secs => $1)`, [goneS]);
    const rows = (await this.dataSource.query(
      `SELECT t."upid" FROM "tasks" t
       WHERE t."endtime" IS NULL AND NOT EXISTS (SELECT 1 FROM "replicas" r WHERE r."id" = t."replica" AND r."seen" > now() - make_interval(secs => $1))`,
      [goneS],
    )) as { upid: string }[];
    return rows.map((row) => row.upid);
  }

  /**
   * Ends a running task another replica ran, after appending `lines` (numbered after the last):
   * one transaction, so that of two replicas ending it at once one does. False when it had ended.
   */
  async endOrphan(upid: string, lines: readonly string[], exitstatus: string): Promise<boolean> {
    return this.dataSource.transaction(async (db) => {
      const running = (await db.query(`SELECT 1 FROM "tasks" WHERE "upid" = $1 AND "endtime" IS NULL FOR UPDATE`, [upid])) as unknown[];
      if (running.length === 0) return false;
      if (lines.length > 0)
        await db.query(
          `INSERT INTO "task_logs" ("upid", "n", "t")
           SELECT $1, COALESCE((SELECT max(l."n") FROM "task_logs" l WHERE l."upid" = $1), 0) + line.n, line.t
           FROM unnest($2::text[]) WITH ORDINALITY AS line(t, n)`,
          [upid, lines],
        );
      return (await this.endWhere('"upid" = $3', [upid], exitstatus, db)).length > 0;
    });
  }

  /**
   * One statement: the end time and status, the closing log line PVE writes (`TASK OK`, `TASK ERROR: <text>`)
   * after the last line, the task's agent requests forgotten, and the notification to whoever
   * waits. Tasks already ended are left alone.
   */
  private async endWhere(
    condition: string,
    params: unknown[],
    exitstatus: string,
    db: EntityManager = this.dataSource.manager,
  ): Promise<string[]> {
    const line = exitstatus === 'OK' ? 'TASK OK' : `TASK ERROR: ${exitstatus}`;
    const rows = (await db.query(
      `WITH ended AS (
         UPDATE "tasks" SET "endtime" = $1, "exitstatus" = $2 WHERE "endtime" IS NULL AND ${condition} RETURNING "upid"
       ), closing AS (
         INSERT INTO "task_logs" ("upid", "n", "t")
         SELECT e."upid", COALESCE((SELECT max(l."n") FROM "task_logs" l WHERE l."upid" = e."upid"), 0) + 1, $${params.length + 3} FROM ended e
         ON CONFLICT DO NOTHING
       ), answered AS (
         DELETE FROM "agent_requests" WHERE "upid" IN (SELECT "upid" FROM ended)
       )
       SELECT e."upid", pg_notify('${TASK_ENDS_CHANNEL}', e."upid") FROM ended e`,
      [Math.floor(Date.now() / 1000), exitstatus, ...params, line],
    )) as { upid: string }[];
    const status = exitstatus === 'OK' ? 'ok' : WARNINGS_STATUS.test(exitstatus) ? 'warning' : 'error';
    for (const { upid } of rows) for (const watcher of this.watchers) watcher.ended(parseUpid(upid)?.type ?? '', status);
    return rows.map((row) => row.upid);
  }

  /** Asks the replica running the task to stop it (it listens on TASK_STOPS_CHANNEL). */
  async requestStop(upid: string, by: string): Promise<void> {
    await this.dataSource.query(`SELECT pg_notify('${TASK_STOPS_CHANNEL}', $1)`, [JSON.stringify({ upid, by })]);
  }

  /** The task, or null. */
  get(upid: string): Promise<TaskRow | null> {
    return this.dataSource.manager.findOneBy(TaskRow, { upid });
  }

  /** The tasks the query selects, newest first, from `start` on, at most `limit`. */
  list(query: TaskQuery, start: number, limit: number): Promise<TaskRow[]> {
    return this.select(query).orderBy('t.starttime', 'DESC').addOrderBy('t.upid', 'DESC').offset(start).limit(limit).getMany();
  }

  private select(query: TaskQuery): SelectQueryBuilder<TaskRow> {
    const select = this.dataSource.manager.createQueryBuilder(TaskRow, 't');
    if (query.node !== undefined) select.andWhere('t.node = :node', { node: query.node });
    if (query.owner !== undefined) select.andWhere('t.user = :owner', { owner: query.owner });
    if (query.userLike !== undefined) select.andWhere('strpos(lower(t.user), lower(:userLike)) > 0', { userLike: query.userLike });
    if (query.type !== undefined) select.andWhere('t.type = :type', { type: query.type });
    if (query.id !== undefined) select.andWhere('t.id = :id', { id: query.id });
    if (query.since !== undefined) select.andWhere('t.starttime >= :since', { since: query.since });
    if (query.until !== undefined) select.andWhere('t.starttime <= :until', { until: query.until });
    if (!query.running) select.andWhere('t.endtime IS NOT NULL');
    if (!query.finished) select.andWhere('t.endtime IS NULL');
    const { statuses } = query;
    if (statuses !== undefined)
      select.andWhere(statuses.length === 0 ? 'false' : `(${statuses.map((status) => `(${STATUS_CLASS_SQL[status]})`).join(' OR ')})`);
    return select;
  }

  /** Lines from number `start + 1` on, at most `limit` (all of them for null), and how many there are. */
  async log(upid: string, start: number, limit: number | null): Promise<{ lines: { n: number; t: string }[]; total: number }> {
    const [rows, total] = await this.dataSource.manager.findAndCount(TaskLogRow, {
      select: { n: true, t: true },
      where: { upid },
      order: { n: 'ASC' },
      skip: start,
      ...(limit !== null ? { take: limit } : {}),
    });
    return { lines: rows.map((row) => ({ n: row.n, t: row.t })), total };
  }
}
