import { nextRun, type CalendarEvent } from '@corral/pve-formats';

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * A slot found later than this after its time was missed: the scheduler was not running then (a
 * tick is every few seconds). A job without `repeat-missed` skips it, as PVE's does after a
 * restart of its scheduler.
 */
export const MISSED_AFTER_MS = 60_000;

/** What the scheduler needs of a job to know when it runs. */
export interface JobTiming {
  readonly event: CalendarEvent;
  /** The job runs at its first slot after this instant: its creation, a change of its schedule or `enabled`, or the slot it last ran. */
  readonly dueAfter: Date;
  readonly repeatMissed: boolean;
}

/** What to do with a job now: wait (until its next slot; null: never again), run the slot, or skip it (missed, without `repeat-missed`). */
export type JobDecision =
  | { readonly kind: 'wait'; readonly until: Date | null }
  | { readonly kind: 'run'; readonly slot: Date }
  | { readonly kind: 'skip'; readonly slot: Date };

/**
 * The decision at `now`, with the schedule read on the wall clock of `timeZone`. Of several slots
 * passed since `dueAfter` only the latest counts: a job that missed many runs runs once.
 */
export function decide(timing: JobTiming, now: Date, timeZone: string): JobDecision {
  const first = nextRun(timing.event, timing.dueAfter, timeZone);
  if (first === null || first > now) return { kind: 'wait', until: first };
  const slot = latestSlot(timing.event, first, now, timeZone);
  return timing.repeatMissed || now.getTime() - slot.getTime() <= MISSED_AFTER_MS ? { kind: 'run', slot } : { kind: 'skip', slot };
}

/** PVE's `next-run` of an enabled job: the slot it runs next, which is now (the slot's time) when one is due. */
export function nextRunOf(timing: JobTiming, now: Date, timeZone: string): Date | null {
  const decision = decide(timing, now, timeZone);
  if (decision.kind === 'run') return decision.slot;
  return decision.kind === 'wait' ? decision.until : nextRun(timing.event, now, timeZone);
}

// Windows before `now` searched for the latest slot, smallest first, so that a long outage of a
// frequent schedule is not walked one slot at a time.
const WINDOWS_MS = [MINUTE, 10 * MINUTE, 60 * MINUTE, 6 * 60 * MINUTE, DAY, 7 * DAY, 32 * DAY, 367 * DAY];

/** The latest slot at or before `now`, given `first`, a slot at or before `now`. */
function latestSlot(event: CalendarEvent, first: Date, now: Date, timeZone: string): Date {
  for (const window of [...WINDOWS_MS, Infinity]) {
    const from = Math.max(first.getTime() - 1, now.getTime() - window);
    let slot = nextRun(event, new Date(from), timeZone);
    if (slot === null || slot > now) continue;
    for (let next = nextRun(event, slot, timeZone); next !== null && next <= now; next = nextRun(event, next, timeZone)) slot = next;
    return slot;
  }
  return first;
}
