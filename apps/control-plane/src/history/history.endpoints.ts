import { z } from 'zod';
import { endpoint, type Check } from '../http/endpoint.js';
import { enumParam, stringParam } from '../http/params.js';
import { GUEST } from '../guests/guest.endpoints.js';
import { AUDIT_NODE, NODE } from '../nodes/nodes.endpoints.js';
import { AUDIT_STORAGE, STORAGE } from '../storage/storage.endpoints.js';
import { CONSOLIDATIONS, TIMEFRAMES, type Timeframe } from './history-levels.js';

const timeframe = (values: readonly [Timeframe, ...Timeframe[]]) =>
  enumParam(
    values,
    'The time frame: `hour` (a point a minute), `day` (30 minutes), `week` (3 hours), `month` (12 hours), `year` (a week)' +
      (values.includes('decade') ? ', `decade` (a week, ten years)' : '') +
      '.',
  );

const HISTORY = (values: readonly [Timeframe, ...Timeframe[]]) => ({
  timeframe: timeframe(values),
  cf: enumParam(CONSOLIDATIONS, "The consolidation: each point's `AVERAGE` (the default) or `MAX` over its interval.").optional(),
});

const NODE_TIMEFRAMES = TIMEFRAMES;
const GUEST_TIMEFRAMES = ['hour', 'day', 'week', 'month', 'year'] as const;

const figure = (description: string) => z.number().optional().meta({ description });
const rate = (what: string) => figure(`${what}, bytes per second.`);

/** A point's slot, and the fields known in it (a field without a value in the interval is left out, as PVE leaves it). */
const Point = { time: z.number().int().meta({ description: 'The start of the interval, in seconds since the epoch.' }) };

export const NodePoint = z.object({
  ...Point,
  cpu: figure('CPU load, a share of all CPUs.'),
  maxcpu: figure('Logical CPUs.'),
  loadavg: figure('The 1-minute load average.'),
  iowait: figure('The share of CPU time spent waiting for I/O.'),
  memused: figure('Memory in use, bytes.'),
  memtotal: figure('Memory, bytes.'),
  memavailable: figure('Memory available to new programs, bytes.'),
  swapused: figure('Swap in use, bytes.'),
  swaptotal: figure('Swap, bytes.'),
  rootused: figure('Used bytes of the root file system.'),
  roottotal: figure('Size of the root file system, bytes.'),
  netin: rate('Received by the physical network cards'),
  netout: rate('Sent by the physical network cards'),
  diskread: rate('Read from the whole disks (Corral: PVE keeps no node disk I/O)'),
  diskwrite: rate('Written to the whole disks (Corral: PVE keeps no node disk I/O)'),
  pressurecpusome: figure('PSI: the share of time some tasks stalled on the CPU.'),
  pressureiosome: figure('PSI: the share of time some tasks stalled on I/O.'),
  pressureiofull: figure('PSI: the share of time all tasks stalled on I/O.'),
  pressurememorysome: figure('PSI: the share of time some tasks stalled on memory.'),
  pressurememoryfull: figure('PSI: the share of time all tasks stalled on memory.'),
});

export const GuestPoint = z.object({
  ...Point,
  cpu: figure("CPU load, a share of the host's CPUs."),
  maxcpu: figure('CPUs.'),
  mem: figure('Memory in use, bytes.'),
  maxmem: figure('Memory, bytes.'),
  disk: figure('Used bytes of the root file system (containers; 0 for VMs).'),
  maxdisk: figure('Size of the boot disk or root file system, bytes.'),
  netin: rate('Received'),
  netout: rate('Sent'),
  diskread: rate('Read from its disks'),
  diskwrite: rate('Written to its disks'),
});

export const StoragePoint = z.object({ ...Point, total: figure('Size, bytes.'), used: figure('Used, bytes.') });

const HISTORY_DESCRIPTION =
  'The newest points of the time frame, one per interval, oldest first, the last one the interval under way: as PVE answers it. Rates are counted from the agents’ counters; a restart does not count as traffic.';

const VM_AUDIT: Check = { kind: 'privileges', path: '/vms/{vmid}', privileges: ['VM.Audit'] };

const NODE_HISTORY = { ...NODE, ...HISTORY(NODE_TIMEFRAMES) };
const GUEST_HISTORY = { ...GUEST, ...HISTORY(GUEST_TIMEFRAMES) };
const STORAGE_HISTORY = { ...NODE, ...STORAGE, ...HISTORY(GUEST_TIMEFRAMES) };

export const HISTORY_ENDPOINTS = {
  node: endpoint({
    method: 'GET',
    path: '/nodes/{node}/rrddata',
    summary: "The node's history",
    description: HISTORY_DESCRIPTION,
    parameters: z.object(NODE_HISTORY),
    returns: z.array(NodePoint),
    permission: AUDIT_NODE,
  }),
  qemu: guestHistory('qemu'),
  lxc: guestHistory('lxc'),
  storage: endpoint({
    method: 'GET',
    path: '/nodes/{node}/storage/{storage}/rrddata',
    summary: "The storage's history on the node",
    description: HISTORY_DESCRIPTION,
    parameters: z.object(STORAGE_HISTORY),
    returns: z.array(StoragePoint),
    permission: AUDIT_STORAGE,
  }),
};

function guestHistory(type: 'qemu' | 'lxc') {
  return endpoint({
    method: 'GET',
    path: `/nodes/{node}/${type}/{vmid}/rrddata`,
    summary: `The ${type === 'qemu' ? 'VM' : 'container'}'s history`,
    description: `${HISTORY_DESCRIPTION} A guest's history follows it from node to node.`,
    parameters: z.object(GUEST_HISTORY),
    returns: z.array(GuestPoint),
    permission: VM_AUDIT,
  });
}

const GRAPH_DESCRIPTION =
  'PVE renders a PNG graph here. Graphs are not built: Corral answers 501 (404 for what does not exist); `rrddata` has the same points.';
const DS = { ds: stringParam({ description: 'The data sources to draw, comma-separated.', minLength: 1, maxLength: 4096 }) };

/** PVE's `rrd` endpoint beside a `rrddata` one (a PNG file), with its parameters and its privileges: answered with 501 and where the points are. */
function graphOf<S extends z.ZodRawShape>(path: string, parameters: S, permission: Check) {
  return endpoint({
    method: 'GET',
    path,
    summary: 'A graph of the history (not built: use rrddata)',
    description: GRAPH_DESCRIPTION,
    parameters: z.object({ ...parameters, ...DS }),
    returns: z.object({ filename: z.string() }),
    permission,
  });
}

export const GRAPH_ENDPOINTS = {
  node: graphOf('/nodes/{node}/rrd', NODE_HISTORY, AUDIT_NODE),
  qemu: graphOf('/nodes/{node}/qemu/{vmid}/rrd', GUEST_HISTORY, VM_AUDIT),
  lxc: graphOf('/nodes/{node}/lxc/{vmid}/rrd', GUEST_HISTORY, VM_AUDIT),
  storage: graphOf('/nodes/{node}/storage/{storage}/rrd', STORAGE_HISTORY, AUDIT_STORAGE),
};
