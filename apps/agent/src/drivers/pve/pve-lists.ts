import type { GuestRuntime } from '@corral/protocol';

/** One guest as `qm list --full` or `pct list` shows it. */
export interface ListedGuest {
  readonly vmid: number;
  readonly status: GuestRuntime['status'];
  /** `qm list` only; 0 there for a stopped VM. */
  readonly pid?: number;
}

/**
 * `qm list --full`: `VMID NAME STATUS MEM(MB) BOOTDISK(GB) PID`, one VM a line. The status is
 * QMP's with `--full` (`running`, `paused`, `suspended`, `prelaunch`, ...) or `stopped`. A VM
 * without a name is listed as `VM 100`, so the columns are counted from both ends.
 */
export function parseQmList(text: string): ListedGuest[] {
  return rows(text).flatMap((columns) => {
    const vmid = Number(columns[0]);
    const status = columns.at(-4);
    const pid = Number(columns.at(-1));
    if (columns.length < 6 || !Number.isInteger(vmid) || status === undefined || !Number.isInteger(pid)) return [];
    const state = runState(status);
    return [state === 'stopped' || pid <= 0 ? { vmid, status: state } : { vmid, status: state, pid }];
  });
}

/** `pct list`: `VMID Status Lock Name`, one container a line; the lock column may be empty. */
export function parsePctList(text: string): ListedGuest[] {
  return rows(text).flatMap(([id, status]) => {
    const vmid = Number(id);
    return Number.isInteger(vmid) && status !== undefined ? [{ vmid, status: runState(status) }] : [];
  });
}

/** The lines that start with a VMID (the header does not), split at blanks. */
function rows(text: string): string[][] {
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([first]) => first !== undefined && /^\d+$/.test(first));
}

/** QMP's `suspended` (suspended to disk, the process still there) and `paused` are both paused; what is not running at all is stopped. */
function runState(status: string): GuestRuntime['status'] {
  if (status === 'stopped') return 'stopped';
  return status === 'paused' || status === 'suspended' ? 'paused' : 'running';
}
