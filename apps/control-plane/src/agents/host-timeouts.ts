/** How long a read of host state may take on the agent (lsblk, ip, systeminformation). */
export const HOST_READ_MS = 15_000;
/** How long a change of a host file may take. */
export const HOST_WRITE_MS = 30_000;
/** How long a host action run as a task may take (apt-get update, ifreload, sgdisk). */
export const HOST_TASK_MS = 10 * 60_000;
