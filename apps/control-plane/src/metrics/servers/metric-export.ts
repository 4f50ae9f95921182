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
 * The most figures kept over all readings (some 20 MiB, packed): a large cluster keeps fewer than 30
 * minutes of readings (at 10,000 guests, about 5 minutes), never fewer than the newest.
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

/** What an object's figures are: its id's prefix and its metrics' names, in the order of its values. */
const LAYOUTS = [
  { prefix: 'node', names: NODE },
  { prefix: 'storage', names: STORAGE },
  { prefix: 'qemu', names: GUEST },
  { prefix: 'qemu', names: RUNNING_GUEST },
  { prefix: 'lxc', names: GUEST },
  { prefix: 'lxc', names: RUNNING_GUEST },
] as const;

/**
 * One reading, packed so that a large cluster's readings cost little more than their numbers: per
 * object its layout (an index into LAYOUTS), the rest of its id (a vmid, or a name shared with the
 * views) and its node; all values in one array, NaN where a figure is not known.
 */
interface Generation {
  readonly time: number;
  readonly layouts: Uint8Array;
  readonly keys: readonly (string | number)[];
  readonly nodes: readonly string[];
  readonly values: Float64Array;
}

type Value = MetricData[string] | undefined;

/** An object's layout, the rest of its id, and its values in the layout's order. */
function figuresOf(object: MetricObject): [number, string | number, Value[]] {
  const data = object.data;
  const group = (key: string) => (data[key] ?? {}) as MetricData;
  switch (object.kind) {
    case 'node': {
      const cpu = group('cpustat');
      const memory = group('memory');
      const block = group('blockstat');
      return [
        0,
        object.node,
        [
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
        ],
      ];
    }
    case 'storage':
      return [1, `${object.node}/${object.storage}`, [data['total'], data['used']]];
    default: {
      const always = [data['uptime'], data['cpus'], data['maxmem'], data['maxdisk']];
      const layout = object.kind === 'qemu' ? 2 : 4;
      return data['status'] === 'running'
        ? [
            layout + 1,
            object.vmid,
            [data['cpu'], data['mem'], data['diskread'], data['diskwrite'], data['netin'], data['netout'], ...always],
          ]
        : [layout, object.vmid, always];
    }
  }
}

function pack(time: number, objects: readonly MetricObject[]): Generation {
  const layouts = new Uint8Array(objects.length);
  const keys: (string | number)[] = [];
  const nodes: string[] = [];
  const values: number[] = [];
  objects.forEach((object, index) => {
    const [layout, key, figures] = figuresOf(object);
    layouts[index] = layout;
    keys.push(key);
    nodes.push(object.node);
    for (const value of figures) values.push(typeof value === 'number' ? value : NaN);
  });
  return { time: Math.floor(time), layouts, keys, nodes, values: Float64Array.from(values) };
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
    const generation = pack(time, objects);
    this.generations.push(generation);
    this.figureCount += generation.values.length;
    while (this.generations.length > 1 && (this.generations.length > GENERATIONS || this.figureCount > this.maxFigures))
      this.figureCount -= this.generations.shift()?.values.length ?? 0;
  }

  /** The time of the newest reading. */
  newest(): number | undefined {
    return this.generations.at(-1)?.time;
  }

  query(query: ExportQuery): ExportedMetric[] {
    const kept = query.history ? this.generations : this.generations.slice(-1);
    const metrics: ExportedMetric[] = [];
    for (const { time, layouts, keys, nodes, values } of kept) {
      if (time <= query.startTime) continue;
      let at = 0;
      layouts.forEach((index, object) => {
        const layout = LAYOUTS[index] ?? LAYOUTS[0];
        const included = query.nodes === undefined || query.nodes.has(nodes[object] ?? '');
        const id = `${layout.prefix}/${keys[object] ?? ''}`;
        for (const metric of layout.names) {
          const value = values[at++] ?? NaN;
          if (included && Number.isFinite(value))
            metrics.push({ id, metric, timestamp: time, type: COUNTERS.has(metric) ? 'derive' : 'gauge', value });
        }
      });
    }
    return metrics;
  }
}
