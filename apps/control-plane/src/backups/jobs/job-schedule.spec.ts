import { parseCalendarEvent } from '@corral/pve-formats';
import { decide, nextRunOf, type JobTiming } from './job-schedule.js';

const timing = (schedule: string, dueAfter: string, repeatMissed = true): JobTiming => ({
  event: parseCalendarEvent(schedule),
  dueAfter: new Date(dueAfter),
  repeatMissed,
});
const at = (iso: string) => new Date(iso);
const show = (decision: ReturnType<typeof decide>) => ({
  ...decision,
  ...('slot' in decision ? { slot: decision.slot.toISOString() } : { until: decision.until?.toISOString() ?? null }),
});

describe('decide', () => {
  it('waits for the first slot after the job was created, then runs it', () => {
    const job = timing('*/1', '2025-06-15T10:00:20Z');
    expect(show(decide(job, at('2025-06-15T10:00:59.999Z'), 'UTC'))).toEqual({ kind: 'wait', until: '2025-06-15T10:01:00.000Z' });
    expect(show(decide(job, at('2025-06-15T10:01:00Z'), 'UTC'))).toEqual({ kind: 'run', slot: '2025-06-15T10:01:00.000Z' });
    expect(show(decide(job, at('2025-06-15T10:01:04Z'), 'UTC'))).toEqual({ kind: 'run', slot: '2025-06-15T10:01:00.000Z' });
  });

  it('does not run a slot before the job was created, even one a second earlier', () => {
    expect(decide(timing('daily', '2025-06-15T00:00:01Z'), at('2025-06-15T00:00:30Z'), 'UTC').kind).toBe('wait');
  });

  it('runs a slot once: after it ran (dueAfter moved to the slot) the job waits for the next one', () => {
    expect(show(decide(timing('*/1', '2025-06-15T10:01:00Z'), at('2025-06-15T10:01:30Z'), 'UTC'))).toEqual({
      kind: 'wait',
      until: '2025-06-15T10:02:00.000Z',
    });
  });

  it('runs three missed slots of a one-minute schedule once, as the latest of them', () => {
    const job = timing('*/1', '2025-06-15T10:00:00Z');
    expect(show(decide(job, at('2025-06-15T10:03:10Z'), 'UTC'))).toEqual({ kind: 'run', slot: '2025-06-15T10:03:00.000Z' });
    // ...and the slot it ran is the new dueAfter: nothing more is due.
    expect(decide({ ...job, dueAfter: at('2025-06-15T10:03:00Z') }, at('2025-06-15T10:03:10Z'), 'UTC').kind).toBe('wait');
  });

  it('finds the latest slot of a frequent schedule after a long outage', () => {
    const started = Date.now();
    expect(show(decide(timing('*/1', '2024-06-15T10:00:00Z'), at('2025-06-15T10:03:10Z'), 'UTC'))).toEqual({
      kind: 'run',
      slot: '2025-06-15T10:03:00.000Z',
    });
    expect(show(decide(timing('mon..fri 22:30', '2025-05-01T00:00:00Z'), at('2025-06-15T10:00:00Z'), 'UTC'))).toEqual({
      kind: 'run',
      slot: '2025-06-13T22:30:00.000Z',
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('skips a missed slot without repeat-missed, but runs one found in time', () => {
    expect(show(decide(timing('*/1', '2025-06-15T10:00:00Z', false), at('2025-06-15T10:03:10Z'), 'UTC'))).toEqual({
      kind: 'run',
      slot: '2025-06-15T10:03:00.000Z',
    });
    expect(show(decide(timing('daily', '2025-06-14T12:00:00Z', false), at('2025-06-15T00:01:00Z'), 'UTC'))).toEqual({
      kind: 'run',
      slot: '2025-06-15T00:00:00.000Z',
    });
    expect(show(decide(timing('daily', '2025-06-14T12:00:00Z', false), at('2025-06-15T00:01:01Z'), 'UTC'))).toEqual({
      kind: 'skip',
      slot: '2025-06-15T00:00:00.000Z',
    });
  });

  it('reads the schedule on the wall clock of the time zone, unless it ends in UTC', () => {
    // 02:00 in Vienna is 00:00 UTC in summer.
    expect(show(decide(timing('02:00', '2025-06-14T12:00:00Z'), at('2025-06-15T00:00:05Z'), 'Europe/Vienna'))).toEqual({
      kind: 'run',
      slot: '2025-06-15T00:00:00.000Z',
    });
    expect(decide(timing('02:00 UTC', '2025-06-14T12:00:00Z'), at('2025-06-15T00:00:05Z'), 'Europe/Vienna').kind).toBe('wait');
  });

  it('waits forever for a schedule with no slot left', () => {
    expect(decide(timing('2020-01-01 00:00', '2025-06-15T00:00:00Z'), at('2025-06-16T00:00:00Z'), 'UTC')).toEqual({
      kind: 'wait',
      until: null,
    });
  });
});

describe('nextRunOf', () => {
  it('is the next slot, the due slot while one is due, and the next slot after now once a missed one is skipped', () => {
    expect(nextRunOf(timing('*/15', '2025-06-15T10:00:00Z'), at('2025-06-15T10:05:00Z'), 'UTC')?.toISOString()).toBe(
      '2025-06-15T10:15:00.000Z',
    );
    expect(nextRunOf(timing('*/15', '2025-06-15T10:00:00Z'), at('2025-06-15T10:15:02Z'), 'UTC')?.toISOString()).toBe(
      '2025-06-15T10:15:00.000Z',
    );
    expect(nextRunOf(timing('*/15', '2025-06-15T10:00:00Z', false), at('2025-06-15T11:05:00Z'), 'UTC')?.toISOString()).toBe(
      '2025-06-15T11:15:00.000Z',
    );
  });
});
