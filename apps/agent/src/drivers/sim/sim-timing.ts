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
  /** Taking, rolling back or deleting a snapshot. */
  readonly snapshotMs: number;
  /** Backing a guest up: a fixed part, plus this much per GiB of the volumes the archive holds, up to `backupMaxMs`. */
  readonly backupMs: number;
  readonly backupPerGiBMs: number;
  readonly backupMaxMs: number;
  /** Restoring a guest: a fixed part, plus this much per GiB of the volumes it fills, up to `restoreMaxMs`. */
  readonly restoreMs: number;
  readonly restorePerGiBMs: number;
  readonly restoreMaxMs: number;
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
  snapshotMs: 300,
  // Reading, compressing and writing about 1 GiB/s, unpacking twice as fast.
  backupMs: 1_000,
  backupPerGiBMs: 1_000,
  backupMaxMs: 60_000,
  restoreMs: 500,
  restorePerGiBMs: 500,
  restoreMaxMs: 30_000,
};

const GIB = 1024 ** 3;

/** The time a create takes: its fixed part and the size of the volumes it allocates, capped. */
export function createTime(timing: SimTiming, guest: GuestSpec, allocate: readonly string[]): number {
  return sizedTime(timing.createMs, timing.createPerGiBMs, timing.createMaxMs, guest, allocate);
}

/** The time a backup takes, by the size of the volumes of `keys` (those its archive holds). */
export function backupTime(timing: SimTiming, guest: GuestSpec, keys: readonly string[]): number {
  return sizedTime(timing.backupMs, timing.backupPerGiBMs, timing.backupMaxMs, guest, keys);
}

/** The time a restore takes, by the size of the volumes of `keys` (those it fills). */
export function restoreTime(timing: SimTiming, guest: GuestSpec, keys: readonly string[]): number {
  return sizedTime(timing.restoreMs, timing.restorePerGiBMs, timing.restoreMaxMs, guest, keys);
}

/** A fixed part plus a part per GiB of the guest's volumes of `keys`, capped. */
function sizedTime(fixedMs: number, perGiBMs: number, maxMs: number, guest: GuestSpec, keys: readonly string[]): number {
  const bytes = guest.volumes.filter((volume) => keys.includes(volume.key)).reduce((sum, volume) => sum + volume.size, 0);
  return Math.min(fixedMs + (perGiBMs * bytes) / GIB, maxMs);
}
