import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '../../../logging/loggers.js';
import { LocalResourceManager } from './local-resource-manager.js';
import { ManagerLock } from './manager-lock.js';
import { Failback } from './failback.js';
import { HaManagerRepository } from './ha-manager.repository.js';
import { Recovery } from './recovery.js';

/** How often every replica runs a round: the manager's, where it holds the lock, and the local resource manager's. */
export const ROUND_MS = 1000;

/**
 * The HA rounds (docs/ha.md). Every replica runs them each second: the one holding the manager lock
 * (ManagerLock) fences and recovers the HA guests of lost nodes (Recovery) and moves VMs to the
 * nodes their groups prefer (Failback), and each replica brings
 * the HA guests of the nodes it holds to their requested state (LocalResourceManager), as PVE's CRM
 * and each node's LRM share the work.
 */
@Injectable()
export class HaManager implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly lock: ManagerLock;
  /** Who holds the manager lock, as `/cluster/ha/status` names the master. */
  private readonly holder = `${hostname()}:${process.pid}`;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(
    dataSource: DataSource,
    private readonly repository: HaManagerRepository,
    private readonly recovery: Recovery,
    private readonly failback: Failback,
    private readonly local: LocalResourceManager,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.lock = new ManagerLock(dataSource);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.round(), ROUND_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.lock.release();
  }

  private async round(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const managed = await this.repository.managed();
      if (await this.lock.hold()) {
        await this.repository.round(this.holder);
        const candidates = await this.repository.candidates(managed);
        await this.recovery.round(managed, candidates);
        await this.failback.round(managed, candidates);
      }
      await this.local.round(managed);
    } catch (error) {
      this.logger.warn({ err: error }, 'HA round failed; the next one tries again');
    } finally {
      this.busy = false;
    }
  }
}
