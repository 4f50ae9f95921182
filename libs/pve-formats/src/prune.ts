import { KEEP_RULES, keepsEverything, validatePruneOptions, type KeepRule, type PruneOptions } from './prune-options.js';
import { DAY, wallClockAt } from './wall-clock.js';

/** One backup of a group: the backups of one guest and type on one storage. */
export interface PrunableBackup {
  /** The caller's key, e.g. the volume id. */
  readonly id: string;
  /** Creation time, epoch seconds (from the archive's name, as PVE does). */
  readonly ctime: number;
  readonly protected?: boolean;
}

/**
 * What pruning does to a backup, with PVE's `mark` values of `GET .../prunebackups` (a backup
 * with a non-standard name, PVE's `renamed`, is the caller's to leave out). A kept backup names the
 * option that kept it.
 */
export type PruneMark =
  | { readonly id: string; readonly ctime: number; readonly mark: 'keep'; readonly reason: KeepRule | 'keep-all' }
  | { readonly id: string; readonly ctime: number; readonly mark: 'remove' | 'protected' };

interface Entry {
  readonly id: string;
  readonly ctime: number;
  /** The creation time on the wall clock the periods are read on. */
  readonly wall: number;
  result?: PruneMark;
}

/** The period of each rule that a backup falls in; keep-last counts each creation time once. */
const PERIOD: Record<KeepRule, (entry: Entry) => number> = {
  'keep-last': (entry) => entry.ctime,
  'keep-hourly': (entry) => Math.floor(entry.wall / 3_600_000),
  'keep-daily': (entry) => Math.floor(entry.wall / DAY),
  // ISO weeks run Monday to Sunday; day 0 (1970-01-01) was a Thursday.
  'keep-weekly': (entry) => Math.floor((Math.floor(entry.wall / DAY) + 3) / 7),
  'keep-monthly': (entry) => new Date(entry.wall).getUTCFullYear() * 12 + new Date(entry.wall).getUTCMonth(),
  'keep-yearly': (entry) => new Date(entry.wall).getUTCFullYear(),
};

/**
 * Marks one group's backups as PVE does (pve-storage `prune_mark_backup_group`; admin guide,
 * "Backup Retention"). Newest first, each option in turn (last, hourly, daily, weekly, monthly,
 * yearly) walks the backups no earlier option has marked and keeps the newest backup of each new
 * period until it has kept its count of periods; a period that already holds a kept backup is
 * skipped, and the older backups of a period it kept are marked for removal, so later options do
 * not look at them either. Protected backups are never removed and count for no option. Periods
 * are read on the wall clock of `timeZone` (PVE: the node's local time).
 *
 * Returns every backup, newest first. Throws a PruneOptionsError for contradicting options.
 */
export function markBackupsForPrune(backups: readonly PrunableBackup[], options: PruneOptions, timeZone = 'UTC'): PruneMark[] {
  validatePruneOptions(options);
  const keepAll = keepsEverything(options);
  const entries = [...backups]
    .sort((a, b) => b.ctime - a.ctime)
    .map(({ id, ctime, protected: isProtected }): Entry => ({
      id,
      ctime,
      wall: wallClockAt(ctime * 1000, timeZone),
      result:
        isProtected === true ? { id, ctime, mark: 'protected' } : keepAll ? { id, ctime, mark: 'keep', reason: 'keep-all' } : undefined,
    }));
  for (const rule of KEEP_RULES) keepPeriods(entries, rule, options[rule] ?? 0);
  return entries.map(({ id, ctime, result }) => result ?? { id, ctime, mark: 'remove' });
}

function keepPeriods(entries: Entry[], rule: KeepRule, count: number): void {
  if (count === 0) return;
  const periodOf = PERIOD[rule];
  const covered = new Set(entries.filter((entry) => entry.result?.mark === 'keep').map(periodOf));
  const kept = new Set<number>();
  for (const entry of entries) {
    const period = periodOf(entry);
    if (entry.result !== undefined || covered.has(period)) continue;
    const { id, ctime } = entry;
    if (kept.has(period)) {
      entry.result = { id, ctime, mark: 'remove' };
      continue;
    }
    if (kept.size >= count) return;
    kept.add(period);
    entry.result = { id, ctime, mark: 'keep', reason: rule };
  }
}
