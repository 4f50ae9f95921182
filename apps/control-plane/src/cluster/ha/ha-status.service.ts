import { Injectable } from '@nestjs/common';
import { hostname } from 'node:os';
import { DatabaseNotifications } from '../../database/notifications.js';
import { currentEntries, managerStatus, type Quorum } from './ha-status-entries.js';
import type { HaManagerStatus, HaStatusEntry } from './ha-status.endpoints.js';
import { HaStatusRepository } from './ha-status.repository.js';

/**
 * The HA status reads (docs/ha.md "Status"), from what the HA manager and the agents' leases wrote.
 * Quorum is Corral's: this replica in touch with the database, where every decision is made.
 */
@Injectable()
export class HaStatusService {
  constructor(
    private readonly repository: HaStatusRepository,
    private readonly database: DatabaseNotifications,
  ) {}

  async current(): Promise<HaStatusEntry[]> {
    return currentEntries(await this.repository.snapshot(), this.quorum());
  }

  async managerStatus(): Promise<HaManagerStatus> {
    return managerStatus(await this.repository.snapshot(), this.quorum());
  }

  private quorum(): Quorum {
    return { node: hostname(), quorate: this.database.listening };
  }
}
