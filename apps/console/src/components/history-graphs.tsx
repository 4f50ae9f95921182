import { useEffect, useMemo, useRef, useState } from 'react';
import { useQueries, useQuery } from '@tanstack/react-query';
import { Alert, Card, CardBody, CardTitle, Gallery, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { call } from '../api/client';
import { bytes } from '../format';

const TIMEFRAMES = ['hour', 'day', 'week', 'month', 'year'] as const;
type Timeframe = (typeof TIMEFRAMES)[number];

/** One interval of `rrddata`: its start (epoch seconds) and the fields that have a value in it. */
type Point = { readonly time: number } & Readonly<Record<string, number | undefined>>;

interface Line {
  readonly label: string;
  readonly value: (point: Point) => number | undefined;
}

interface GraphSpec {
  readonly title: string;
  readonly lines: readonly Line[];
  readonly format: (value: number) => string;
}

/** PatternFly's chart colours: blue, orange, green, purple, cyan, gold, red, black. */
const COLORS = ['#0066cc', '#ec7a08', '#3e8635', '#5752d1', '#009596', '#f0ab00', '#c9190b', '#151515'];
const REFRESH_MS = 60_000;
const rate = (value: number) => `${bytes(value)}/s`;

const CPU: GraphSpec = {
  title: 'CPU',
  lines: [{ label: 'CPU', value: (p) => percentOf(p['cpu']) }],
  format: (v) => `${v.toFixed(v < 10 ? 1 : 0)} %`,
};

/** A pair of fields in one graph: used and total, in and out, read and write. */
function pair(
  title: string,
  format: (value: number) => string,
  [first, firstField]: [string, string],
  [second, secondField]: [string, string],
): GraphSpec {
  return {
    title,
    lines: [
      { label: first, value: (p) => p[firstField] },
      { label: second, value: (p) => p[secondField] },
    ],
    format,
  };
}

const NETWORK = pair('Network', rate, ['in', 'netin'], ['out', 'netout']);
const DISK_IO = pair('Disk I/O', rate, ['read', 'diskread'], ['write', 'diskwrite']);

/** The graphs of a node or a guest: PVE's fields, with PVE's names, from the metric history. */
const GRAPHS: Readonly<Record<'node' | 'guest', readonly GraphSpec[]>> = {
  node: [CPU, pair('Memory', bytes, ['used', 'memused'], ['total', 'memtotal']), NETWORK, DISK_IO],
  guest: [CPU, pair('Memory', bytes, ['used', 'mem'], ['total', 'maxmem']), NETWORK, DISK_IO],
};

function percentOf(share: number | undefined): number | undefined {
  return share === undefined ? undefined : share * 100;
}

/** `path`'s `rrddata` (a node's, or a guest's `/nodes/{node}/{type}/{vmid}`) as graphs, over a time frame the user picks. */
export function HistoryGraphs({ path, kind }: { readonly path: string; readonly kind: 'node' | 'guest' }) {
  const [timeframe, setTimeframe] = useState<Timeframe>('hour');
  const history = useQuery({
    queryKey: ['rrddata', path, timeframe],
    queryFn: () => call<Point[]>('GET', `${path}/rrddata`, { timeframe, cf: 'AVERAGE' }),
    refetchInterval: REFRESH_MS,
  });
  return (
    <div className="corral-graphs" data-testid="graphs">
      <ToggleGroup aria-label="Time frame" isCompact>
        {TIMEFRAMES.map((frame) => (
          <ToggleGroupItem key={frame} text={frame} isSelected={frame === timeframe} onChange={() => setTimeframe(frame)} />
        ))}
      </ToggleGroup>
      {history.isError && <Alert isInline variant="danger" title={history.error.message} />}
      <Gallery hasGutter minWidths={{ default: '320px' }}>
        {GRAPHS[kind].map((spec) => (
          <Card key={spec.title} isCompact>
            <CardTitle>{spec.title}</CardTitle>
            <CardBody>
              <Graph spec={spec} points={history.data ?? []} />
            </CardBody>
          </Card>
        ))}
      </Gallery>
    </div>
  );
}

/** The most nodes whose lines share a dashboard graph; beyond them the lines are unreadable. */
export const MAX_NODE_LINES = COLORS.length;

/**
 * The dashboard's graphs: each node's CPU and memory in use over the last hour, one line per node
 * (PVE has no cluster-wide history; each node's `rrddata` is read and the minutes lined up).
 */
export function ClusterGraphs({ nodes }: { readonly nodes: readonly string[] }) {
  const shown = nodes.slice(0, MAX_NODE_LINES);
  const histories = useQueries({
    queries: shown.map((node) => ({
      queryKey: ['rrddata', `/nodes/${encodeURIComponent(node)}`, 'hour'],
      queryFn: () => call<Point[]>('GET', `/nodes/${encodeURIComponent(node)}/rrddata`, { timeframe: 'hour', cf: 'AVERAGE' }),
      refetchInterval: REFRESH_MS,
    })),
  });
  const merged = new Map<number, Record<string, number | undefined>>();
  histories.forEach((history, i) => {
    for (const point of history.data ?? []) {
      const row = merged.get(point.time) ?? { time: point.time };
      row[`cpu:${shown[i]}`] = percentOf(point['cpu']);
      row[`mem:${shown[i]}`] = point['memused'];
      merged.set(point.time, row);
    }
  });
  const points = [...merged.values()].sort((a, b) => (a['time'] ?? 0) - (b['time'] ?? 0)) as Point[];
  const key = shown.join(',');
  const specs = useMemo(
    (): GraphSpec[] => [
      { ...CPU, lines: shown.map((node) => ({ label: node, value: (p: Point) => p[`cpu:${node}`] })) },
      { title: 'Memory in use', lines: shown.map((node) => ({ label: node, value: (p: Point) => p[`mem:${node}`] })), format: bytes },
    ],
    [key],
  );
  return (
    <Gallery hasGutter minWidths={{ default: '320px' }} data-testid="cluster-graphs">
      {specs.map((spec) => (
        <Card key={spec.title} isCompact>
          <CardTitle>
            {spec.title}, last hour{nodes.length > shown.length ? ` (the first ${shown.length} of ${nodes.length} nodes)` : ''}
          </CardTitle>
          <CardBody>
            <Graph spec={spec} points={points} />
          </CardBody>
        </Card>
      ))}
    </Gallery>
  );
}

const HEIGHT = 160;

/** One uPlot chart, redrawn when its points change and resized with its card. */
function Graph({ spec, points }: { readonly spec: GraphSpec; readonly points: readonly Point[] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const data: uPlot.AlignedData = [points.map((p) => p.time), ...spec.lines.map((line) => points.map((p) => line.value(p) ?? null))];

  useEffect(() => {
    if (!box.current) return;
    const style = getComputedStyle(document.documentElement);
    const ink = style.getPropertyValue('--pf-t--global--text--color--subtle').trim() || '#6a6e73';
    const grid = style.getPropertyValue('--pf-t--global--border--color--default').trim() || '#d2d2d2';
    const axis = { stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const chart = new uPlot(
      {
        width: box.current.clientWidth,
        height: HEIGHT,
        series: [
          {},
          ...spec.lines.map((line, i) => ({
            label: line.label,
            stroke: COLORS[i],
            width: 1.5,
            value: (_u: uPlot, v: number | null) => (v === null ? '-' : spec.format(v)),
          })),
        ],
        axes: [axis, { ...axis, size: 70, values: (_u: uPlot, values: number[]) => values.map(spec.format) }],
        scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max : 1] } },
      },
      data,
      box.current,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() => box.current && chart.setSize({ width: box.current.clientWidth, height: HEIGHT }));
    resize.observe(box.current);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
    // The chart is made once per graph; new points go in through setData below.
  }, [spec]);

  useEffect(() => {
    plot.current?.setData(data);
  });

  return <div ref={box} />;
}
