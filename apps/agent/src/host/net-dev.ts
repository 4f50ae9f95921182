/** Bytes in and out of something: received and sent, or read and written. */
export interface Counters {
  readonly in: number;
  readonly out: number;
}

export const NO_COUNTERS: Counters = { in: 0, out: 0 };

/** Bytes received and sent, summed over the interfaces of /proc/net/dev (or /proc/<pid>/net/dev) that `counts` takes. */
export function parseNetDev(text: string, counts: (name: string) => boolean): Counters {
  let received = 0;
  let sent = 0;
  for (const line of text.split('\n')) {
    const match = /^\s*([^:\s|]+):\s*(.*)$/.exec(line);
    if (match === null || !counts(match[1] ?? '')) continue;
    const fields = (match[2] ?? '').trim().split(/\s+/).map(Number);
    // Receive bytes is the first field, transmit bytes the ninth.
    received += fields[0] ?? 0;
    sent += fields[8] ?? 0;
  }
  return { in: received, out: sent };
}
