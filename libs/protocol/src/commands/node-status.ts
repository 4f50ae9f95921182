import { z } from 'zod';
import { Bytes, Fraction, Seconds } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/** What `GET /nodes/{node}/status` shows, with PVE's names for the same data. */
export const NodeStatus = z.object({
  /** CPU load over the last polling interval, as a fraction of all CPUs. */
  cpu: Fraction,
  /** Load averages over 1, 5 and 15 minutes (PVE sends them as strings; the control plane does that). */
  loadavg: z.tuple([z.number().min(0), z.number().min(0), z.number().min(0)]),
  uptime: Seconds,
  memory: z.object({ total: Bytes, used: Bytes, free: Bytes, available: Bytes }),
  /** The root file system. */
  rootfs: z.object({ total: Bytes, used: Bytes, free: Bytes, avail: Bytes }),
  cpuinfo: z.object({ model: z.string(), sockets: z.int().min(1), cores: z.int().min(1), cpus: z.int().min(1) }),
  /** `uname` of the running kernel (PVE's `current-kernel`). */
  kernel: z.object({ sysname: z.string(), release: z.string(), version: z.string(), machine: z.string() }),
  /** The distribution's pretty name. */
  os: z.string(),
});
export type NodeStatus = z.infer<typeof NodeStatus>;

export const nodeStatus = {
  description: "The host's load, memory, root disk, uptime, CPU, kernel and distribution.",
  params: z.strictObject({}),
  result: NodeStatus,
} satisfies CommandDefinition;
