import type { MetricData, MetricObject } from './metric-objects.js';

/*
 * Graphite's plaintext protocol as PVE writes it: `<path>.<object>.<key>... <value> <time>`, the
 * object being `nodes.<node>`, `qemu.<vmid>`, `lxc.<vmid>` or `storages.<node>.<storage>`; nested
 * groups extend the path, dots in a key become dashes, and only numbers are sent (`template`,
 * `pid` and `agent` left out, as PVE leaves them out).
 */

const LEFT_OUT = new Set(['template', 'pid', 'agent', 'serial']);

/** The lines of one object read at `time` (epoch seconds) under the root `path`, each ending in a newline. */
export function graphiteLines(object: MetricObject, time: number, path: string): string[] {
  const lines: string[] = [];
  assemble(lines, object.data, `${path}.${objectPath(object)}`, ` ${Math.floor(time)}\n`);
  return lines;
}

function objectPath(object: MetricObject): string {
  switch (object.kind) {
    case 'node':
      return `nodes.${object.node}`;
    case 'storage':
      return `storages.${object.node}.${object.storage}`;
    default:
      return `${object.kind}.${object.vmid}`;
  }
}

function assemble(lines: string[], data: MetricData, path: string, ending: string): void {
  for (const key of Object.keys(data).sort()) {
    const value = data[key];
    const metricPath = `${path}.${key.replace(/\./g, '-')}`;
    if (typeof value === 'object') assemble(lines, value, metricPath, ending);
    else if (typeof value === 'number' && Number.isFinite(value) && !LEFT_OUT.has(key))
      lines.push(`${metricPath} ${decimal(value)}${ending}`);
  }
}

/** A number in plain decimal notation (Graphite does not read `1e-7`). */
function decimal(value: number): string {
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(12).replace(/\.?0+$/, '') : text;
}
