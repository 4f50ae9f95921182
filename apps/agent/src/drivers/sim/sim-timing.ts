import type { GuestSpec } from '@corral/protocol';

/**
 * How long each simulated operation takes at speed 1, in milliseconds: in the range a small guest
 * takes on a real host, so that the control plane's queues, tasks and timeouts see realistic waits.
 */
export interface SimTiming {
  /** Creating a guest: a fixed part, plus this much per GiB of allocated volumes, up to `createMaxMs`. */
  readonly createMs: number;
  readonly createPerGiBMs: number;
  readonly createMaxMs: number;
  readonly startMs: number;
  readonly stopMs: number;
  /** How long a guest takes to shut down when asked (compared with the command's timeout). */
  readonly shutdownMs: number;
  readonly resetMs: number;
  readonly suspendMs: number;
  readonly resumeMs: number;
  readonly destroyMs: number;
  readonly cloneMs: number;
  readonly templateMs: number;
  readonly monitorMs: number;
  /** Moving a guest to another node, its volumes and (online) its memory. */
  readonly migrateMs: number;
}

export const DEFAULT_SIM_TIMING: SimTiming = {
  createMs: 300,
  createPerGiBMs: 100,
  createMaxMs: 5_000,
  startMs: 500,
  stopMs: 200,
  shutdownMs: 1_000,
  resetMs: 100,
  suspendMs: 100,
  resumeMs: 100,
  destroyMs: 200,
  cloneMs: 500,
  templateMs: 200,
  monitorMs: 20,
  migrateMs: 2_000,
};

const GIB = 1024 ** 3;

/** The time a create takes: its fixed part and the size of the volumes it allocates, capped. */
export function createTime(timing: SimTiming, guest: GuestSpec, allocate: readonly string[]): number {
  const bytes = guest.volumes.filter((volume) => allocate.includes(volume.key)).reduce((sum, volume) => sum + volume.size, 0);
  return Math.min(timing.createMs + (timing.createPerGiBMs * bytes) / GIB, timing.createMaxMs);
}
