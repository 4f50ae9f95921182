import { MINUTE, slotOf } from './history-levels.js';
import type { Sample } from './history-samples.js';

/** One point of a series: its slot's start (epoch seconds), and each field's average and maximum. */
export interface Point {
  readonly series: string;
  readonly slot: number;
  readonly avg: Record<string, number>;
  readonly max: Record<string, number>;
}

interface Figure {
  sum: number;
  count: number;
  max: number;
}

interface Rate {
  bytes: number;
  seconds: number;
  max: number;
}

interface OpenPoint {
  readonly slot: number;
  readonly gauges: Map<string, Figure>;
  readonly rates: Map<string, Rate>;
}

/** The reading a series' next counters are compared with, and when it was taken (epoch seconds). */
interface Base {
  readonly clock: number;
  readonly counters: Readonly<Record<string, number>>;
  readonly at: number;
}

/** A series not read for this long is forgotten: its guest is gone, or another replica holds its node. */
const FORGET_AFTER_S = 180;

/**
 * The minute points of the series this replica reads, made from their readings as they come: a
 * gauge's average and maximum over the minute; a counter's rate (bytes per second) over the minute,
 * and the highest rate between two readings in it. A counter's change is counted on the series' own
 * clock; where the counter or the clock went back (the guest or the host restarted), it is not
 * counted, and the reading is the base of the next.
 */
export class MinutePoints {
  private readonly open = new Map<string, OpenPoint>();
  private readonly bases = new Map<string, Base>();
  private closed: Point[] = [];

  /** A reading of `series` taken at `at` (epoch seconds); one taken before the minute under way (the clock was set back) counts in it. */
  add(series: string, at: number, sample: Sample): void {
    const slot = slotOf(MINUTE, at);
    let point = this.open.get(series);
    if (point !== undefined && point.slot < slot) {
      this.close(series, point);
      point = undefined;
    }
    if (point === undefined) {
      point = { slot, gauges: new Map(), rates: new Map() };
      this.open.set(series, point);
    }
    for (const [field, value] of Object.entries(sample.gauges)) {
      const figure = point.gauges.get(field);
      if (figure === undefined) point.gauges.set(field, { sum: value, count: 1, max: value });
      else {
        figure.sum += value;
        figure.count += 1;
        figure.max = Math.max(figure.max, value);
      }
    }
    const base = this.bases.get(series);
    // The same clock: the same report read again, which changes nothing.
    if (base !== undefined && sample.clock === base.clock) return;
    if (base !== undefined && sample.clock > base.clock) {
      const seconds = sample.clock - base.clock;
      for (const [field, value] of Object.entries(sample.counters)) {
        const before = base.counters[field];
        if (before === undefined || value < before) continue;
        const bytes = value - before;
        const rate = point.rates.get(field);
        if (rate === undefined) point.rates.set(field, { bytes, seconds, max: bytes / seconds });
        else {
          rate.bytes += bytes;
          rate.seconds += seconds;
          rate.max = Math.max(rate.max, bytes / seconds);
        }
      }
    }
    this.bases.set(series, { clock: sample.clock, counters: sample.counters, at });
  }

  /** The points of the minutes before the one of `at`, taken out: ready to be written. */
  take(at: number): Point[] {
    const slot = slotOf(MINUTE, at);
    for (const [series, point] of this.open) {
      if (point.slot >= slot) continue;
      this.close(series, point);
      this.open.delete(series);
    }
    const points = this.closed;
    this.closed = [];
    for (const [series, base] of this.bases) if (at - base.at > FORGET_AFTER_S) this.bases.delete(series);
    return points;
  }

  /** Keeps the point to be taken, unless it has no field (only a first reading of counters). */
  private close(series: string, point: OpenPoint): void {
    if (point.gauges.size > 0 || point.rates.size > 0) this.closed.push(pointOf(series, point));
  }
}

function pointOf(series: string, point: OpenPoint): Point {
  const avg: Record<string, number> = {};
  const max: Record<string, number> = {};
  for (const [field, figure] of point.gauges) {
    avg[field] = figure.sum / figure.count;
    max[field] = figure.max;
  }
  for (const [field, rate] of point.rates) {
    avg[field] = rate.bytes / rate.seconds;
    max[field] = rate.max;
  }
  return { series, slot: point.slot, avg, max };
}
