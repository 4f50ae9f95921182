import { Inject, Injectable } from '@nestjs/common';
import type { CommandName, LogLine, ParamsOf } from '@corral/protocol';
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import { callerName, type Principal } from '../access/auth/principal.js';
import { AgentHub } from '../agents/agent-hub.js';
import { LOGGER } from '../logging/loggers.js';
import { TasksRepository } from './tasks.repository.js';
import { formatUpid } from './upid.js';

export interface TaskSpec {
  readonly node: string;
  /** PVE's task type: `aptupdate`, `srvreload`, `diskinit`, ... */
  readonly type: string;
  /** What it acts on; '' for the node itself. */
  readonly id: string;
  readonly caller: Principal;
}

/** PVE's `pstart`: the start of the worker process in clock ticks; here, of this control-plane process. */
const PSTART = Math.floor(performance.timeOrigin / 10) % 0x1_0000_0000;

/**
 * Starts tasks (DESIGN.md "Tasks"): the UPID is returned at once, the work goes on in the
 * background, its output lines and its end (`OK` or the error text, and PVE's closing `TASK OK` /
 * `TASK ERROR: ...` line) are written to the task tables as they come.
 */
@Injectable()
export class TaskRunner {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly hub: AgentHub,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** A task whose work is one command on the node's agent. Refused with 503 before it starts when the agent is not here. */
  async onAgent<K extends CommandName>(spec: TaskSpec, command: K, params: ParamsOf<K>, timeoutMs: number): Promise<string> {
    this.hub.reachable(spec.node);
    return this.start(spec, (upid, log) => this.hub.request(spec.node, command, params, { timeoutMs, upid, onLog: log }).then(() => undefined));
  }

  async start(spec: TaskSpec, work: (upid: string, log: (lines: readonly LogLine[]) => void) => Promise<void>): Promise<string> {
    const user = callerName(spec.caller);
    const task = { node: spec.node, pid: randomInt(1, 0x7fff_ffff), pstart: PSTART, starttime: Math.floor(Date.now() / 1000), type: spec.type, id: spec.id, user };
    const upid = formatUpid(task);
    await this.tasks.insert({ upid, ...task });
    void this.run(upid, work);
    return upid;
  }

  private async run(upid: string, work: (upid: string, log: (lines: readonly LogLine[]) => void) => Promise<void>): Promise<void> {
    let last = 0;
    // Lines are written in the order they came; the end waits for them.
    let written = Promise.resolve();
    const log = (lines: readonly LogLine[]) => {
      last = Math.max(last, ...lines.map((line) => line.n));
      written = written.then(() => this.tasks.appendLog(upid, lines.map((line) => ({ n: line.n, t: line.text }))));
    };
    let exitstatus = 'OK';
    try {
      await work(upid, log);
    } catch (error) {
      exitstatus = error instanceof Error ? error.message : String(error);
    }
    try {
      await written;
      await this.tasks.appendLog(upid, [{ n: last + 1, t: exitstatus === 'OK' ? 'TASK OK' : `TASK ERROR: ${exitstatus}` }]);
      await this.tasks.finish(upid, exitstatus);
    } catch (error) {
      this.logger.error({ err: error, upid }, 'cannot record the end of a task');
    }
  }
}
