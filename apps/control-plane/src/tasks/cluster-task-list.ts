import type { TaskRow } from './task.entity.js';

/**
 * `/cluster/tasks` from its two reads, the running tasks and then the finished ones, newest first,
 * each task once: one that ended between the two reads is in both, and its finished row, read
 * second, is the current one (PVE lists every task once).
 */
export function clusterTaskList(running: readonly TaskRow[], finished: readonly TaskRow[]): TaskRow[] {
  const byUpid = new Map<string, TaskRow>();
  for (const task of [...running, ...finished]) byUpid.set(task.upid, task);
  return [...byUpid.values()].sort((a, b) => b.starttime - a.starttime || (a.upid < b.upid ? 1 : -1));
}
