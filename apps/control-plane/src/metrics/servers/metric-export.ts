import type { ExportedMetric } from './metric-servers.endpoints.js';
import type { MetricData, MetricObject } from './metric-objects.js';

/*
 * PVE 9's pull interface (`/cluster/metrics/export`): each reading as a flat list of gauges and
 * counters (`derive`) named as PVE names them (`cpu_current`, `mem_used`, `net_in`...), kept for 30
 * minutes of readings as PVE keeps them.
 */

/** Readings kept: 30 minutes at one reading every 10 s, and the newest. */
export const GENERATIONS = 181;
/**
 * The most figures kept over all readings (some 80 MiB): a large cluster keeps fewer than 30
 * minutes of readings (at 10,000 guests, about 6 minutes), never fewer than the newest.
 */
export const MAX_FIGURES = 2_000_000;

const NODE = [
  'uptime',
  'net_in',
  'net_out',
  'cpu_avg1',
  'cpu_max',
  'cpu_current',
  'cpu_iowait',
  'mem_total',
  'mem_used',
  'swap_total',
  'swap_used',
  'disk_total',
  'disk_used',
] as const;
const STORAGE = ['disk_total', 'disk_used'] as const;
const GUEST = ['uptime', 'cpu_max', 'mem_total', 'disk_total'] as const;
const RUNNING_GUEST = ['cpu_current', 'mem_used', 'disk_read', 'disk_write', 'net_in', 'net_out', ...GUEST] as const;
const COUNTERS = new Set<string>(['net_in', 'net_out', 'disk_read', 'disk_write']);

/** One object's figures in one reading: `values[i]` is the figure named `names[i]`, NaN where it is not known. */
interface Figures {
  readonly id: string;
  readonly node: string;
  readonly names: readonly string[];
  readonly values: Float64Array;
}

interface Generation {
  readonly time: number;
  readonly figures: readonly Figures[];
}

/** The figures of one object under PVE's metric names. */
function figuresOf(object: MetricObject): Figures {
  const data = object.data;
  const group = (key: string) => (data[key] ?? {}) as MetricData;
  const of = (id: string, names: readonly string[], values: readonly (MetricData[string] | undefined)[]): Figures => ({
    id,
    node: object.node,
    names,
    values: Float64Array.from(values, (value) => (typeof value === 'number' ? value : NaN)),
  });
  switch (object.kind) {
    case 'node': {
      const cpu = group('cpustat');
      const memory = group('memory');
      const block = group('blockstat');
      return of(`node/${object.node}`, NODE, [
        data['uptime'],
        object.traffic.netin,
        object.traffic.netout,
        cpu['avg1'],
        cpu['cpus'],
        cpu['cpu'],
        cpu['wait'],
        memory['memtotal'],
        memory['memused'],
        memory['swaptotal'],
        memory['swapused'],
        block['blocks'],
        block['used'],
      ]);
    }
    case 'storage':
      return of(`storage/${object.node}/${object.storage}`, STORAGE, [data['total'], data['used']]);
    default: {
      const always = [data['uptime'], data['cpus'], data['maxmem'], data['maxdisk']];
      const id = `${object.kind}/${object.vmid}`;
      return data['status'] === 'running'
        ? of(id, RUNNING_GUEST, [data['cpu'], data['mem'], data['diskread'], data['diskwrite'], data['netin'], data['netout'], ...always])
        : of(id, GUEST, always);
    }
  }
}

function countOf(generation: Generation): number {
  return generation.figures.reduce((count, figures) => count + figures.values.length, 0);
}

export interface ExportQuery {
  /** Earlier readings too, not only the newest. */
  readonly history: boolean;
  /** Only readings after this time (epoch seconds). */
  readonly startTime: number;
  /** Only these nodes' objects; all when absent. */
  readonly nodes?: ReadonlySet<string>;
}

/** The readings of the last 30 minutes, newest last. */
export class ExportGenerations {
  private readonly generations: Generation[] = [];
  private figureCount = 0;

  constructor(private readonly maxFigures = MAX_FIGURES) {}

  add(time: number, objects: readonly MetricObject[]): void {
    const generation = { time: Math.floor(time), figures: objects.map(figuresOf) };
    this.generations.push(generation);
    this.figureCount += countOf(generation);
    while (this.generations.length > 1 && (this.generations.length > GENERATIONS || this.figureCount > this.maxFigures))
      this.figureCount -= countOf(this.generations.shift() ?? generation);
  }

  /** The time of the newest reading. */
  newest(): number | undefined {
    return this.generations.at(-1)?.time;
  }

  query(query: ExportQuery): ExportedMetric[] {
    const kept = query.history ? this.generations : this.generations.slice(-1);
    const metrics: ExportedMetric[] = [];
    for (const { time, figures } of kept) {
      if (time <= query.startTime) continue;
      for (const { id, node, names, values } of figures) {
        if (query.nodes !== undefined && !query.nodes.has(node)) continue;
        names.forEach((metric, index) => {
          const value = values[index] ?? NaN;
          if (Number.isFinite(value)) metrics.push({ id, metric, timestamp: time, type: COUNTERS.has(metric) ? 'derive' : 'gauge', value });
        });
      }
    }
    return metrics;
  }
}
