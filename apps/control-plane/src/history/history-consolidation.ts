import { type Level, LEVELS, slotOf } from './history-levels.js';
import { type HistoryRepository, oldestKept } from './history.repository.js';

/**
 * How long after a slot ends it is consolidated: the minute points of every replica's nodes are
 * written within seconds of their minute's end.
 */
export const CONSOLIDATE_LAG_S = 120;

/**
 * Consolidates the slots of each coarser level once they have closed (from the level below, finest
 * first) and cuts every level to its bound. Each replica runs it for every series: a slot
 * consolidated twice comes out the same. At its first run it consolidates every closed slot the
 * finer level still holds points of, so a replica that was down catches up.
 */
export class HistoryConsolidation {
  /** Per level, the end of the slots consolidated so far. */
  private readonly done = new Map<Level, number>();

  constructor(private readonly repository: HistoryRepository) {}

  async run(now: number): Promise<void> {
    for (const [index, level] of LEVELS.entries()) {
      const finer = LEVELS[index - 1];
      if (finer === undefined) continue;
      const to = slotOf(level, now - CONSOLIDATE_LAG_S);
      const from = this.done.get(level) ?? slotOf(level, oldestKept(finer, now));
      if (from >= to) continue;
      await this.repository.consolidate(finer, level, from, to);
      this.done.set(level, to);
    }
    await this.repository.prune(now);
  }
}
