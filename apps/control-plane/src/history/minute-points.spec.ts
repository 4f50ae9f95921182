import { MinutePoints } from './minute-points.js';
import type { Sample } from './history-samples.js';

const T = 1_800_000_000; // a minute's start: 1800000000 = 30000000 minutes

const sample = (clock: number, gauges: Record<string, number>, counters: Record<string, number> = {}): Sample => ({
  clock,
  gauges,
  counters,
});

describe('the minute points', () => {
  it('averages a gauge over the minute and keeps its highest reading; a point is ready once its minute has ended', () => {
    const minutes = new MinutePoints();
    minutes.add('vm/100', T, sample(10, { cpu: 0.1, maxmem: 1024 }));
    minutes.add('vm/100', T + 20, sample(30, { cpu: 0.5, maxmem: 1024 }));
    minutes.add('vm/100', T + 40, sample(50, { cpu: 0.3, maxmem: 1024 }));
    expect(minutes.take(T + 59)).toEqual([]);
    expect(minutes.take(T + 60)).toEqual([{ series: 'vm/100', slot: T, avg: { cpu: 0.3, maxmem: 1024 }, max: { cpu: 0.5, maxmem: 1024 } }]);
    expect(minutes.take(T + 120)).toEqual([]);
  });

  it("turns counters into bytes per second on the series' own clock, the minute's rate and its highest between two readings", () => {
    const minutes = new MinutePoints();
    minutes.add('node/a', T - 10, sample(990, {}, { netin: 0 }));
    // 10 s of uptime apart whatever the delay of the reports: 1000 B/s, then 3000 B/s.
    minutes.add('node/a', T + 5, sample(1000, {}, { netin: 10_000 }));
    minutes.add('node/a', T + 12, sample(1010, {}, { netin: 40_000 }));
    // The same report read again changes nothing.
    minutes.add('node/a', T + 20, sample(1010, {}, { netin: 40_000 }));
    const [point] = minutes.take(T + 60);
    expect(point?.avg).toEqual({ netin: 2000 });
    expect(point?.max).toEqual({ netin: 3000 });
  });

  it('counts nothing across a restart: the clock or a counter that went back starts the count anew', () => {
    const minutes = new MinutePoints();
    minutes.add('vm/100', T, sample(500, {}, { diskwrite: 1_000_000, netin: 500 }));
    // The guest restarted: its uptime and counters began again.
    minutes.add('vm/100', T + 10, sample(5, {}, { diskwrite: 100, netin: 50 }));
    minutes.add('vm/100', T + 20, sample(15, {}, { diskwrite: 1100, netin: 30 }));
    const [point] = minutes.take(T + 60);
    // diskwrite: 1000 B over 10 s; netin went back without the clock doing so (a counter reset): not counted.
    expect(point?.avg).toEqual({ diskwrite: 100 });
  });

  it('closes a point when the next minute of its series begins, and a series read no more after its last minute', () => {
    const minutes = new MinutePoints();
    minutes.add('storage/a/local', T + 30, sample(0, { used: 10, total: 100 }));
    minutes.add('storage/a/local', T + 70, sample(0, { used: 20, total: 100 }));
    expect(minutes.take(T + 125)).toEqual([
      { series: 'storage/a/local', slot: T, avg: { used: 10, total: 100 }, max: { used: 10, total: 100 } },
      { series: 'storage/a/local', slot: T + 60, avg: { used: 20, total: 100 }, max: { used: 20, total: 100 } },
    ]);
  });
});
