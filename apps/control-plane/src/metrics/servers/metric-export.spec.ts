import { ExportGenerations, GENERATIONS } from './metric-export.js';
import type { MetricObject } from './metric-objects.js';

const storage = (index: number): MetricObject => ({
  kind: 'storage',
  node: 'pve1',
  storage: `s${index}`,
  type: 'dir',
  data: { total: 10, used: index },
});

describe('the readings kept for the export', () => {
  it('are the last 30 minutes', () => {
    const kept = new ExportGenerations();
    for (let reading = 0; reading < GENERATIONS + 5; reading++) kept.add(reading * 10, [storage(1)]);
    const times = new Set(kept.query({ history: true, startTime: -1 }).map((metric) => metric.timestamp));
    expect(times.size).toBe(GENERATIONS);
    expect(Math.min(...times)).toBe(50);
  });

  it('are fewer where the cluster is large, the newest always', () => {
    const kept = new ExportGenerations(400);
    // Two figures per storage: a reading of 100 storages is half the bound.
    const many = Array.from({ length: 100 }, (_, index) => storage(index));
    for (const time of [10, 20, 30]) kept.add(time, many);
    expect(new Set(kept.query({ history: true, startTime: 0 }).map((metric) => metric.timestamp))).toEqual(new Set([20, 30]));
    kept.add(
      40,
      Array.from({ length: 400 }, (_, index) => storage(index)),
    );
    expect(kept.newest()).toBe(40);
    expect(kept.query({ history: true, startTime: 0 })).toHaveLength(800);
  });
});
