import { clusterTaskList } from './cluster-task-list.js';
import type { TaskRow } from './task.entity.js';

const task = (upid: string, starttime: number, endtime: number | null): TaskRow => ({ upid, starttime, endtime }) as TaskRow;

describe("the cluster's task list", () => {
  it('lists a task that ended between the two reads once, as ended', () => {
    const running = [task('UPID:b', 20, null), task('UPID:a', 10, null)];
    const finished = [task('UPID:a', 10, 15), task('UPID:old', 5, 6)];
    expect(clusterTaskList(running, finished).map((t) => [t.upid, t.endtime])).toEqual([
      ['UPID:b', null],
      ['UPID:a', 15],
      ['UPID:old', 6],
    ]);
  });

  it('orders tasks started in the same second by upid, newest first', () => {
    expect(clusterTaskList([task('UPID:x1', 7, null)], [task('UPID:x2', 7, 8)]).map((t) => t.upid)).toEqual(['UPID:x2', 'UPID:x1']);
  });
});
