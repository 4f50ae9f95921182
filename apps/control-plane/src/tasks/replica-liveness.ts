import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { AgentRequestsRepository } from '../agents/agent-requests.repository.js';
import { LOGGER } from '../logging/loggers.js';
import { ReplicaIdentity } from '../replicas/replica-identity.js';
import { ReplicasRepository } from '../replicas/replicas.repository.js';
import { orphanEnd } from './orphan-ends.js';
import { TasksRepository } from './tasks.repository.js';

/** A replica unseen for this long is gone: any other ends its running tasks (it writes a heartbeat every 2 s). */
export const REPLICA_GONE_S = 30;
/** The agent hub's liveness rhythm. */
const HEARTBEAT_MS = 2000;

/**
 * This control-plane replica as the tasks know it: a random id per process that each task records,
 * a heartbeat every 2 s, and on every beat the running tasks of replicas gone for REPLICA_GONE_S
 * (killed, cut off, or from before this table) are ended by whichever replica comes first: with
 * the answer to their last step when that step was running on an agent (once the answer came,
 * orphan-ends.ts), else with REPLICA_STOPPED. A replica whose own heartbeat failed (the database
 * was unreachable) sweeps again only REPLICA_GONE_S after its heartbeat is back: in a database
 * outage every replica misses its beats, and the others need that long to beat again before their
 * silence means they are gone.
 */
@Injectable()
export class ReplicaLiveness implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  /** Whether the last heartbeat failed. */
  private cutOff = false;
  /** When (performance.now()) this replica may sweep again: 0 until an outage of its own. */
  private sweepFrom = 0;

  constructor(
    private readonly identity: ReplicaIdentity,
    private readonly replicas: ReplicasRepository,
    private readonly tasks: TasksRepository,
    private readonly requests: AgentRequestsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The id each task of this replica records. */
  get id(): string {
    return this.identity.id;
  }

  /** Seen before any task can start, so that no sweep takes this replica's first tasks for orphans. */
  async onModuleInit(): Promise<void> {
    await this.replicas.heartbeat(this.identity.id, this.identity.address);
  }

  /** At start, the tasks of replicas already gone are ended at once. */
  async onApplicationBootstrap(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Runs after the task runner wrote the ends of its tasks: any task left (one started during the shutdown) is another replica's to end at once. */
  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    try {
      await this.replicas.forget(this.identity.id);
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot remove this replica from the replicas table; the others will after 30 s');
    }
  }

  private async endOrphans(): Promise<void> {
    const orphans = await this.tasks.orphaned(REPLICA_GONE_S);
    if (orphans.length === 0) return;
    const requests = await this.requests.ofTasks(orphans);
    const ended: string[] = [];
    for (const upid of orphans) {
      const end = orphanEnd(
        requests.filter((request) => request.upid === upid),
        Date.now(),
      );
      if (end !== null && (await this.tasks.endOrphan(upid, end.lines, end.exitstatus))) ended.push(upid);
    }
    if (ended.length > 0) this.logger.warn({ tasks: ended }, 'ended the running tasks of control-plane replicas that are gone');
  }

  /** One beat: the heartbeat, then, unless this replica is just back from an outage, the sweep of vanished replicas' tasks. */
  async check(): Promise<void> {
    try {
      await this.replicas.heartbeat(this.identity.id, this.identity.address);
    } catch (error) {
      this.cutOff = true;
      this.logger.warn({ err: error }, 'replica heartbeat failed');
      return;
    }
    if (this.cutOff) {
      this.cutOff = false;
      this.sweepFrom = performance.now() + REPLICA_GONE_S * 1000;
      this.logger.info(`replica heartbeat is back; the tasks of replicas gone are ended from ${REPLICA_GONE_S} s on`);
    }
    if (performance.now() < this.sweepFrom) return;
    try {
      await this.endOrphans();
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot end the tasks of replicas that are gone');
    }
  }
}
