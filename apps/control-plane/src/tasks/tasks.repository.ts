import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TaskLogRow } from './task-log.entity.js';
import { TaskRow } from './task.entity.js';

/** The tasks and task_logs tables. */
@Injectable()
export class TasksRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(task: Omit<TaskRow, 'endtime' | 'exitstatus'>): Promise<void> {
    await this.dataSource.manager.insert(TaskRow, { ...task, endtime: null, exitstatus: null });
  }

  /** Appends lines; a line number already there (a re-sent log frame) is kept as it was. */
  async appendLog(upid: string, lines: readonly { n: number; t: string }[]): Promise<void> {
    if (lines.length === 0) return;
    await this.dataSource.createQueryBuilder().insert().into(TaskLogRow).values(lines.map((line) => ({ upid, ...line }))).orIgnore().execute();
  }

  /** Ends a running task; a task already ended stays as it ended. */
  async finish(upid: string, exitstatus: string): Promise<void> {
    await this.dataSource.query('UPDATE "tasks" SET "endtime" = $2, "exitstatus" = $3 WHERE "upid" = $1 AND "endtime" IS NULL', [upid, Math.floor(Date.now() / 1000), exitstatus]);
  }

  get(upid: string): Promise<TaskRow | null> {
    return this.dataSource.manager.findOneBy(TaskRow, { upid });
  }

  /** The node's tasks (of `user` only, when given), newest first. */
  ofNode(node: string, page: { readonly user: string | undefined; readonly start: number; readonly limit: number }): Promise<TaskRow[]> {
    return this.dataSource.manager.find(TaskRow, {
      where: { node, ...(page.user !== undefined ? { user: page.user } : {}) },
      order: { starttime: 'DESC', upid: 'DESC' },
      take: page.limit,
      skip: page.start,
    });
  }

  /** Lines from number `start + 1` on, at most `limit`, and how many there are. */
  async log(upid: string, start: number, limit: number): Promise<{ lines: { n: number; t: string }[]; total: number }> {
    const [rows, total] = await this.dataSource.manager.findAndCount(TaskLogRow, { select: { n: true, t: true }, where: { upid }, order: { n: 'ASC' }, skip: start, take: limit });
    return { lines: rows.map((row) => ({ n: row.n, t: row.t })), total };
  }
}
