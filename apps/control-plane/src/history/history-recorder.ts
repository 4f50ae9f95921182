import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { AgentHub } from '../agents/agent-hub.js';
import { statusEntry } from '../guests/status-entry.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { LOGGER } from '../logging/loggers.js';
import { HistoryConsolidation } from './history-consolidation.js';
import { MINUTE } from './history-levels.js';
import { guestSample, nodeSample, seriesOf, storageSample } from './history-samples.js';
import { HistoryRepository } from './history.repository.js';
import { MinutePoints } from './minute-points.js';

/** How often the series are read: PVE's pvestatd updates its graphs every 10 s too. */
const READ_EVERY_MS = 10_000;

/**
 * Keeps the history of the nodes whose agents this replica holds, of their guests and of their
 * storages: every 10 s it reads their figures from the in-memory views (the agents' newest reports),
 * and once a minute has ended it writes that minute's points, all series in one statement, then
 * consolidates the coarser levels and cuts each level to its bound. A node's history is written by
 * whichever replica holds its agent at the time.
 */
@Injectable()
export class HistoryRecorder implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly minutes = new MinutePoints();
  private readonly consolidation: HistoryConsolidation;
  private timer: NodeJS.Timeout | undefined;
  /** The writes, one after another. */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly nodes: NodeView,
    private readonly guests: GuestView,
    private readonly hub: AgentHub,
    private readonly repository: HistoryRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.consolidation = new HistoryConsolidation(repository);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(Date.now() / 1000), READ_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.writes;
  }

  /** Reads every series at `now` (epoch seconds) and writes the minutes that ended before it; never throws. */
  tick(now: number): Promise<void> {
    try {
      this.read(now);
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot read the figures of the history');
    }
    this.writes = this.writes.then(() => this.write(now));
    return this.writes;
  }

  private read(at: number): void {
    for (const node of this.nodes.list()) {
      const { inventory } = node;
      if (inventory === null || !this.hub.holds(node.name)) continue;
      this.minutes.add(seriesOf.node(node.name), at, nodeSample(inventory));
      for (const space of inventory.storages ?? []) {
        const sample = storageSample(space);
        if (sample !== undefined) this.minutes.add(seriesOf.storage(node.name, space.storage), at, sample);
      }
      for (const state of this.guests.onNode(node.name))
        this.minutes.add(seriesOf.guest(state.row.vmid), at, guestSample(statusEntry(state), state.runtime));
    }
  }

  /** A failed write loses its minute's points (the next minute's come on their own), and is logged. */
  private async write(now: number): Promise<void> {
    const points = this.minutes.take(now);
    if (points.length === 0) return;
    try {
      await this.repository.write(MINUTE, points);
      await this.consolidation.run(now);
    } catch (error) {
      this.logger.warn({ err: error, points: points.length }, 'cannot write the history');
    }
  }
}
