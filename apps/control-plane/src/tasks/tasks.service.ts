import { Injectable } from '@nestjs/common';
import { allows, type Privilege } from '@corral/acl';
import { callerName, type Principal } from '../http/principal.js';
import { permissionDenied } from '../access/auth/authorizer.js';
import { AccessState } from '../access/state/access-state.js';
import { badParam, notFound } from '../errors/resource-errors.js';
import { NodesService } from '../nodes/nodes.service.js';
import { TaskEnds } from './task-ends.js';
import { TaskRunner } from './task-runner.js';
import { clusterTaskList } from './cluster-task-list.js';
import type { TaskRow } from './task.entity.js';
import type { ParamsOf } from '../http/endpoint.js';
import type { TASKS_ENDPOINTS, TaskEntry, TaskStatus } from './tasks.endpoints.js';
import { TasksRepository, type TaskQuery } from './tasks.repository.js';
import { parseUpid } from './upid.js';

const DEFAULT_LIMIT = 50;
/** `/cluster/tasks`: every running task (up to this many) and this many of the last finished ones. */
const CLUSTER_RUNNING = 500;
const CLUSTER_FINISHED = 50;

/** The filters of `GET /nodes/{node}/tasks` (PVE's names). */
type TaskFilters = Omit<ParamsOf<typeof TASKS_ENDPOINTS.list>, 'node'>;

@Injectable()
export class TasksService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly runner: TaskRunner,
    private readonly ends: TaskEnds,
    private readonly nodes: NodesService,
    private readonly access: AccessState,
  ) {}

  async list(node: string, caller: Principal, filters: TaskFilters): Promise<TaskEntry[]> {
    this.nodes.existing(node);
    const source = filters.source ?? 'archive';
    const query: TaskQuery = {
      node,
      // Without Sys.Audit on the node, only the caller's own tasks: filtered by the query, so paging counts only those.
      ...((await this.may(caller, `/nodes/${node}`, 'Sys.Audit')) ? {} : { owner: callerName(caller) }),
      ...(filters.userfilter !== undefined ? { userLike: filters.userfilter } : {}),
      ...(filters.typefilter !== undefined ? { type: filters.typefilter } : {}),
      ...(filters.vmid !== undefined ? { id: String(filters.vmid) } : {}),
      ...(filters.since !== undefined ? { since: filters.since } : {}),
      ...(filters.until !== undefined ? { until: filters.until } : {}),
      running: source !== 'archive',
      finished: source !== 'active',
      // PVE: `errors` is every status but `ok`, and wins over `statusfilter`.
      ...(filters.errors
        ? { statuses: ['warning', 'error', 'unknown'] }
        : filters.statusfilter !== undefined
          ? { statuses: filters.statusfilter }
          : {}),
    };
    const rows = await this.tasks.list(query, filters.start ?? 0, filters.limit ?? DEFAULT_LIMIT);
    return rows.map((task) => entryOf(task, 'RUNNING'));
  }

  /** `wait` seconds: while the task runs, answer when it ends or when the wait runs out, whichever comes first. */
  async status(node: string, upid: string, caller: Principal, wait = 0): Promise<TaskStatus> {
    const deadline = Date.now() + wait * 1000;
    for (;;) {
      // Waiting starts before the read, so that an end between the two wakes it.
      const waiting = wait > 0 ? this.ends.wait(upid, deadline) : null;
      try {
        const task = await this.visible(node, upid, caller);
        if (task.endtime !== null || waiting === null || Date.now() >= deadline) return statusOf(task);
        await waiting.woken;
      } finally {
        waiting?.cancel();
      }
    }
  }

  async log(node: string, upid: string, caller: Principal, start = 0, limit = DEFAULT_LIMIT): Promise<{ n: number; t: string }[]> {
    await this.visible(node, upid, caller);
    const { lines, total } = await this.tasks.log(upid, start, limit === 0 ? null : limit);
    // PVE answers an empty log with one line, which clients that index lines by `n` rely on.
    return total === 0 ? [{ n: 1, t: 'no content' }] : lines;
  }

  async index(node: string, upid: string, caller: Principal): Promise<{ name: string }[]> {
    await this.visible(node, upid, caller);
    return [{ name: 'log' }, { name: 'status' }];
  }

  /** PVE: the task's owner, or Sys.Modify on `/nodes/{node}`. A task that has ended stays as it ended (PVE answers null too). */
  async stop(node: string, upid: string, caller: Principal): Promise<null> {
    const task = await this.existing(node, upid);
    await this.ownerOr(task, caller, 'Sys.Modify');
    if (task.endtime === null) await this.runner.stop(task, callerName(caller));
    return null;
  }

  /** PVE: every task with Sys.Audit on `/`, else the caller's own. */
  async cluster(caller: Principal): Promise<TaskEntry[]> {
    const owner = (await this.may(caller, '/', 'Sys.Audit')) ? {} : { owner: callerName(caller) };
    const running = await this.tasks.list({ ...owner, running: true, finished: false }, 0, CLUSTER_RUNNING);
    const finished = await this.tasks.list({ ...owner, running: false, finished: true }, 0, CLUSTER_FINISHED);
    return clusterTaskList(running, finished).map((task) => entryOf(task, null));
  }

  /** PVE: the task's owner, or Sys.Audit on `/nodes/{node}`. */
  private async visible(node: string, upid: string, caller: Principal): Promise<TaskRow> {
    const task = await this.existing(node, upid);
    await this.ownerOr(task, caller, 'Sys.Audit');
    return task;
  }

  /** The task's owner (a token is not its user), or the privilege on the task's node. */
  private async ownerOr(task: TaskRow, caller: Principal, privilege: Privilege): Promise<void> {
    if (task.user === callerName(caller) || (await this.may(caller, `/nodes/${task.node}`, privilege))) return;
    throw permissionDenied({ path: `/nodes/${task.node}`, privileges: [privilege] });
  }

  private async existing(node: string, upid: string): Promise<TaskRow> {
    this.nodes.existing(node);
    if (parseUpid(upid) === null) throw badParam('upid', 'unable to parse worker upid');
    const task = await this.tasks.get(upid);
    if (!task || task.node !== node) throw notFound(`task '${upid}'`);
    return task;
  }

  private async may(caller: Principal, path: string, privilege: Privilege): Promise<boolean> {
    return allows(await this.access.current(), caller.subject, path, [privilege]);
  }
}

/** The UPID's fields, a token's tasks as its owner and the token's name (PVE). */
function identityOf(task: TaskRow): Omit<TaskEntry, 'status' | 'endtime'> {
  const { upid, node, pid, pstart, starttime, type, id } = task;
  const bang = task.user.indexOf('!');
  const user = bang < 0 ? { user: task.user } : { user: task.user.slice(0, bang), tokenid: task.user.slice(bang + 1) };
  return { upid, node, pid, pstart, starttime, type, id, ...user };
}

/** A list entry: `status` is how it ended, or `running` (PVE's `RUNNING` in a node's list, nothing in the cluster's) while it runs. */
function entryOf(task: TaskRow, running: string | null): TaskEntry {
  const status = task.exitstatus ?? running;
  return { ...identityOf(task), ...(status !== null ? { status } : {}), ...(task.endtime !== null ? { endtime: task.endtime } : {}) };
}

function statusOf(task: TaskRow): TaskStatus {
  return {
    ...identityOf(task),
    status: task.endtime === null ? 'running' : 'stopped',
    ...(task.exitstatus !== null ? { exitstatus: task.exitstatus } : {}),
    ...(task.endtime !== null ? { endtime: task.endtime } : {}),
  };
}
