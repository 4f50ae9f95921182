import { z } from 'zod';
import { Bytes, Fraction, Seconds } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/** What `GET /nodes/{node}/status` shows, with PVE's names for the same data. */
export const NodeStatus = z.object({
  /** CPU load over the last polling interval, as a fraction of all CPUs. */
  cpu: Fraction,
  /** The share of CPU time spent waiting for I/O since the previous node.status (or since boot); absent from older agents. */
  wait: Fraction.optional(),
  /** Load averages over 1, 5 and 15 minutes (PVE sends them as strings; the control plane does that). */
  loadavg: z.tuple([z.number().min(0), z.number().min(0), z.number().min(0)]),
  uptime: Seconds,
  memory: z.object({ total: Bytes, used: Bytes, free: Bytes, available: Bytes }),
  /** Swap space; absent from older agents. */
  swap: z.object({ total: Bytes, used: Bytes, free: Bytes }).optional(),
  /** Memory that kernel same-page merging shares; absent from older agents. */
  ksmShared: Bytes.optional(),
  /** The root file system. */
  rootfs: z.object({ total: Bytes, used: Bytes, free: Bytes, avail: Bytes }),
  cpuinfo: z.object({
    model: z.string(),
    sockets: z.int().min(1),
    cores: z.int().min(1),
    cpus: z.int().min(1),
    /** The first processor's `cpu MHz` line of /proc/cpuinfo as the kernel writes it (`3400.000`); absent where the kernel has none, and from older agents. */
    mhz: z
      .string()
      .regex(/^\d+(?:\.\d+)?$/)
      .optional(),
    /** The first processor's `flags` line of /proc/cpuinfo (empty where the kernel has none); absent from older agents. */
    flags: z.string().optional(),
    /** The kernel's clock ticks per second as programs see them (USER_HZ); absent from older agents. */
    userHz: z.int().min(1).optional(),
  }),
  /** `uname` of the running kernel (PVE's `current-kernel`). */
  kernel: z.object({ sysname: z.string(), release: z.string(), version: z.string(), machine: z.string() }),
  /** How the host booted: through EFI firmware (with Secure Boot or not, when the firmware says) or a legacy BIOS; absent from older agents. */
  boot: z.object({ efi: z.boolean(), secureboot: z.boolean().optional() }).optional(),
  /** The distribution's pretty name. */
  os: z.string(),
});
export type NodeStatus = z.infer<typeof NodeStatus>;

export const nodeStatus = {
  description: "The host's load, I/O wait, memory, swap, root disk, uptime, CPU, kernel, boot mode and distribution.",
  params: z.strictObject({}),
  result: NodeStatus,
} satisfies CommandDefinition;
