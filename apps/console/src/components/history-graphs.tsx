import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
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

const COLORS = ['#0066cc', '#ec7a08'];
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
