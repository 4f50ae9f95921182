import { z } from 'zod';
import { Bytes, Fraction, Seconds, Sequence, Vmid } from '../fields.js';
import { StorageId, StorageStatus } from '../commands/storage.js';

/** The space of one storage the agent was told to watch (`storage.watch`), as `storage.status` answers it. */
export const StorageSpace = StorageStatus.extend({ storage: StorageId });
export type StorageSpace = z.infer<typeof StorageSpace>;

/**
 * Pressure stall information (the kernel's PSI, `/proc/pressure`): the share of the last 10 s in
 * which some (or all) runnable tasks stalled on the CPU, I/O or memory, 0 to 1.
 */
export const Pressure = z.object({
  cpusome: Fraction,
  iosome: Fraction,
  iofull: Fraction,
  memorysome: Fraction,
  memoryfull: Fraction,
});
export type Pressure = z.infer<typeof Pressure>;

/** Counters since the host booted, or since the guest started: bytes received and sent, read and written. */
const Traffic = {
  netin: Bytes.optional(),
  netout: Bytes.optional(),
  diskread: Bytes.optional(),
  diskwrite: Bytes.optional(),
};

/**
 * The node's load and capacity, polled by the agent (every few seconds) for the hot reads of
 * `/nodes`, `/cluster/status` and `/cluster/resources`: PVE's field names and units.
 */
export const InventoryReport = z.object({
  kind: z.literal('inventory'),
  /** CPU load over the last polling interval, as a fraction of all CPUs. */
  cpu: Fraction,
  /** Logical CPUs. */
  maxcpu: z.int().min(1),
  /** Memory in use and total, in bytes (Corral's `memtotal` is `maxmem`). */
  mem: Bytes,
  maxmem: Bytes,
  /** Seconds since the host booted. */
  uptime: Seconds,
  /** The root file system's used and total bytes. */
  disk: Bytes,
  maxdisk: Bytes,
  /** The distribution's pretty name, e.g. `Debian GNU/Linux 13 (trixie)`. */
  os: z.string(),
  /** The running kernel's release, e.g. `6.12.38+deb13-amd64`. */
  kernel: z.string(),
  /** The space of each storage of the last `storage.watch`, in its order; absent while the agent watches none. */
  storages: z.array(StorageSpace).max(256).optional(),
  /**
   * The figures of the node's history (the ones below are absent from an agent that does not read
   * them): the 1-minute load average, the share of CPU time spent waiting for I/O since the last
   * poll, swap in use and its size.
   */
  loadavg: z.number().min(0).optional(),
  iowait: Fraction.optional(),
  swap: Bytes.optional(),
  maxswap: Bytes.optional(),
  /** Traffic of the physical network cards and of the whole disks (partitions and virtual block devices not counted). */
  ...Traffic,
  /** Absent where the kernel has no PSI. */
  pressure: Pressure.optional(),
});
export type InventoryReport = z.infer<typeof InventoryReport>;

/** One guest as its driver last saw it. */
export const GuestRuntime = z.object({
  vmid: Vmid,
  /** `qemu` or `lxc`, as PVE's `type` in `/cluster/resources`. */
  type: z.enum(['qemu', 'lxc']),
  status: z.enum(['running', 'stopped', 'paused']),
  /** The main process, while it runs. */
  pid: z.int().min(1).optional(),
  uptime: Seconds,
  /** CPU use as a fraction of the host's CPUs. */
  cpu: Fraction,
  /** Memory in use, in bytes. */
  mem: Bytes,
  /** While it runs, where the driver can read them: `netin` is what the guest received, `netout` what it sent (PVE's sense). */
  ...Traffic,
});
export type GuestRuntime = z.infer<typeof GuestRuntime>;

/**
 * The run state of the guests on the node, the agent's truth. A whole report lists every guest and
 * replaces the ones before it. A report of changes (`since` present, sent only to a control plane
 * whose `welcome` lists `runtime-changes`) lists the guests that appeared or whose entry changed
 * since the runtime report numbered `since` in the same session, and in `gone` the vmids that left:
 * it applies only on top of that report, and a receiver that does not hold it drops it (the agent
 * sends a whole report first on every connection, and again once 10 s passed when anything changed,
 * figures included).
 */
export const RuntimeReport = z.object({
  kind: z.literal('runtime'),
  guests: z.array(GuestRuntime),
  /** On a report of changes: the `seq` of the runtime report of this session it follows. */
  since: Sequence.optional(),
  /** On a report of changes: the guests no longer on the node. */
  gone: z.array(Vmid).optional(),
  /**
   * The vmids whose making (a create, clone or restore) runs on the agent now: such a guest may be
   * missing from `guests` or not whole yet, and its making has not ended.
   */
  making: z.array(Vmid).optional(),
});
export type RuntimeReport = z.infer<typeof RuntimeReport>;

export const ReportPayload = z.discriminatedUnion('kind', [InventoryReport, RuntimeReport]);
export type ReportPayload = z.infer<typeof ReportPayload>;

/**
 * Agent → control plane: a full snapshot of one kind of node state, sent when polled and changed
 * (at most every heartbeat). The control plane keeps the newest in memory and writes it to the
 * database only when it changed meaningfully. Re-sent after a reconnect until acknowledged, newest
 * of each kind only (`AckFrame`).
 */
export const ReportFrame = z.object({
  type: z.literal('report'),
  seq: Sequence,
  payload: ReportPayload,
});
export type ReportFrame = z.infer<typeof ReportFrame>;
