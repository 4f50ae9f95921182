/** The backup scheduler's time: now, and the time zone schedules are read in. */
export interface SchedulerClock {
  now(): Date;
  /** An IANA zone name. */
  readonly timeZone: string;
}

export const SCHEDULER_CLOCK = Symbol('SCHEDULER_CLOCK');

/**
 * The process's clock and local time zone (`TZ`, else the system's): PVE reads a job's schedule
 * on the node's local time, and Corral's jobs run from the control plane, so on its local time.
 * Replicas should share a time zone (docs/backups.md).
 */
export const SYSTEM_CLOCK: SchedulerClock = { now: () => new Date(), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone };
