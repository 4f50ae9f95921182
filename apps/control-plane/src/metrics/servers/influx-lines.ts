import type { MetricData, MetricObject } from './metric-objects.js';

/*
 * InfluxDB's line protocol as PVE writes it: the object's top-level figures in measurement
 * `system`, each nested group in a measurement of its name (`cpustat`, `memory`, `ha`...), a group
 * of groups with an `instance` tag per member; tags `object` (nodes, qemu, lxc, storages), `host`
 * (the node, the guest's name or the storage), `nodename` and `vmid`; nanosecond timestamps.
 */

/** Fields whose text is always quoted: a name or tags of digits must not turn the field's type into a number. */
const QUOTED = new Set(['name', 'tags']);
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The lines of one object read at `time` (epoch seconds), each ending in a newline. */
export function influxLines(object: MetricObject, time: number): string[] {
  const lines: string[] = [];
  build(
    lines,
    object.data,
    tagsOf(object),
    `${Math.floor(time)}000000000`,
    object.kind === 'node' || object.kind === 'storage' ? undefined : 'vmid',
  );
  return lines;
}

function tagsOf(object: MetricObject): string {
  switch (object.kind) {
    case 'node':
      return `object=nodes,host=${tag(object.node)}`;
    case 'storage':
      return `object=storages,nodename=${tag(object.node)},host=${tag(object.storage)},type=${tag(object.type)}`;
    default:
      return `object=${object.kind},vmid=${object.vmid},nodename=${tag(object.node)}${object.name !== '' ? `,host=${tag(object.name)}` : ''}`;
  }
}

function build(
  lines: string[],
  data: MetricData,
  tags: string,
  stamp: string,
  excluded?: string,
  measurement?: string,
  instance?: string,
): void {
  const values: string[] = [];
  for (const key of Object.keys(data).sort()) {
    const value = data[key];
    if (key === excluded || value === undefined || value === '') continue;
    if (typeof value === 'object') {
      if (measurement === undefined) build(lines, value, tags, stamp, excluded, key);
      else if (instance === undefined) build(lines, value, tags, stamp, excluded, measurement, key);
      else values.push(...nestedValues(value));
    } else {
      const field = fieldValue(value, QUOTED.has(key));
      if (field !== undefined) values.push(`${key}=${field}`);
    }
  }
  if (values.length > 0)
    lines.push(
      `${measurement ?? 'system'},${tags}${instance !== undefined ? `,instance=${tag(instance)}` : ''} ${values.join(',')} ${stamp}\n`,
    );
}

function nestedValues(data: MetricData): string[] {
  return Object.entries(data).flatMap(([key, value]) => {
    if (value === undefined || value === '') return [];
    if (typeof value === 'object') return nestedValues(value);
    const field = fieldValue(value, false);
    return field === undefined ? [] : [`${key}=${field}`];
  });
}

/** A number as it is (NaN and infinities are left out: InfluxDB takes neither), text quoted unless it is a number. */
function fieldValue(value: number | string, quote: boolean): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (!quote && NUMBER_TEXT.test(value)) return value;
  return `"${value.replace(/[\\"]/g, (found) => `\\${found}`)}"`;
}

/** A tag's value with the line protocol's separators escaped. */
function tag(text: string): string {
  return text.replace(/[\s,=\\]/g, (found) => `\\${found === '\t' || found === '\n' ? ' ' : found}`);
}
