import { Injectable } from '@nestjs/common';
import { allows } from '@corral/acl';
import { callerName, type Principal } from '../access/auth/principal.js';
import { permissionDenied } from '../access/auth/authorizer.js';
import { AccessState } from '../access/state/access-state.js';
import { notFound } from '../errors/resource-errors.js';
import { NodesService } from '../nodes/nodes.service.js';
import type { TaskRow } from './task.entity.js';
import type { TaskStatus } from './tasks.endpoints.js';
import { TasksRepository } from './tasks.repository.js';

const DEFAULT_LIMIT = 50;

@Injectable()
export class TasksService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly nodes: NodesService,
    private readonly access: AccessState,
  ) {}

  async list(node: string, caller: Principal, start = 0, limit = DEFAULT_LIMIT): Promise<TaskStatus[]> {
    this.nodes.existing(node);
    // Without Sys.Audit on the node, only the caller's own tasks: filtered by the query, so paging counts only those.
    const user = (await this.canAudit(node, caller)) ? undefined : callerName(caller);
    return (await this.tasks.ofNode(node, { user, start, limit })).map(statusOf);
  }

  async status(node: string, upid: string, caller: Principal): Promise<TaskStatus> {
    return statusOf(await this.visible(node, upid, caller));
  }

  async log(node: string, upid: string, caller: Principal, start = 0, limit = DEFAULT_LIMIT): Promise<{ n: number; t: string }[]> {
    await this.visible(node, upid, caller);
    return (await this.tasks.log(upid, start, limit)).lines;
  }

  async index(node: string, upid: string, caller: Principal): Promise<{ name: string }[]> {
    await this.visible(node, upid, caller);
    return [{ name: 'log' }, { name: 'status' }];
  }

  /** PVE: the task's owner, or Sys.Audit on `/nodes/{node}`. */
  private async visible(node: string, upid: string, caller: Principal): Promise<TaskRow> {
    this.nodes.existing(node);
    const task = await this.tasks.get(upid);
    if (!task || task.node !== node) throw notFound(`task '${upid}'`);
    if (!ownedBy(task, caller) && !(await this.canAudit(node, caller))) throw permissionDenied({ path: `/nodes/${node}`, privileges: ['Sys.Audit'] });
    return task;
  }

  private async canAudit(node: string, caller: Principal): Promise<boolean> {
    return allows(await this.access.current(), caller.subject, `/nodes/${node}`, ['Sys.Audit']);
  }
}

function ownedBy(task: TaskRow, caller: Principal): boolean {
  return task.user === callerName(caller);
}

function statusOf(task: TaskRow): TaskStatus {
  const { upid, node, pid, pstart, starttime, type, id, user } = task;
  return {
    upid, node, pid, pstart, starttime, type, id, user,
    status: task.endtime === null ? 'running' : 'stopped',
    ...(task.exitstatus !== null ? { exitstatus: task.exitstatus } : {}),
    ...(task.endtime !== null ? { endtime: task.endtime } : {}),
  };
}
