/*
 * The task log of a backup, as the native driver writes it and the simulator repeats it (the
 * control plane sees the same lines from both).
 */

/**
 * A running container's backup in `snapshot` mode, which falls back to `suspend`, with one mount
 * point `mp0` at /srv/data; `creating` is the archive's line (or a matcher of it).
 */
export function suspendedContainerLog(creating: unknown): unknown[] {
  return [
    'INFO: mode failure - some volumes do not support snapshots',
    "INFO: trying 'suspend' mode instead",
    'INFO: backup mode: suspend',
    "INFO: including mount point rootfs ('/') in backup",
    "INFO: excluding volume mount point mp0 ('/srv/data') from backup",
    'INFO: suspending guest',
    creating,
    'INFO: resuming guest',
  ];
}
