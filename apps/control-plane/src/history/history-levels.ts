/*
 * The resolutions of the history, PVE's: one point a minute for the last hour, averages and maxima
 * of 30 minutes for a day, 3 hours for a week, 12 hours for a month and a week for a year, 70 points
 * each, as `rrddata` shows them. The weekly points are kept ten years, for PVE's `decade`. Each
 * coarser level is consolidated from the one below it once its slot has closed.
 */

export const TIMEFRAMES = ['hour', 'day', 'week', 'month', 'year', 'decade'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

/** PVE's consolidation functions. */
export const CONSOLIDATIONS = ['AVERAGE', 'MAX'] as const;
export type Consolidation = (typeof CONSOLIDATIONS)[number];

export interface Level {
  /** Seconds per point: a point's `slot` is the start of its interval, a multiple of `step` since the epoch. */
  readonly step: number;
  /** How many points the database keeps. */
  readonly keep: number;
}

export const MINUTE: Level = { step: 60, keep: 70 };
const HALF_HOUR: Level = { step: 1800, keep: 70 };
const THREE_HOURS: Level = { step: 10_800, keep: 70 };
const HALF_DAY: Level = { step: 43_200, keep: 70 };
const WEEK: Level = { step: 604_800, keep: 520 };

/** Every level, finest first: each but the first is consolidated from the one before it. */
export const LEVELS: readonly Level[] = [MINUTE, HALF_HOUR, THREE_HOURS, HALF_DAY, WEEK];

/** The level a timeframe reads, and how many of its points it shows (the newest ending with the current slot). */
export const SHOWN: Readonly<Record<Timeframe, { readonly level: Level; readonly points: number }>> = {
  hour: { level: MINUTE, points: 70 },
  day: { level: HALF_HOUR, points: 70 },
  week: { level: THREE_HOURS, points: 70 },
  month: { level: HALF_DAY, points: 70 },
  year: { level: WEEK, points: 70 },
  decade: { level: WEEK, points: 520 },
};

/** The start of the slot of `level` that second `at` falls in. */
export function slotOf(level: Level, at: number): number {
  return Math.floor(at / level.step) * level.step;
}
