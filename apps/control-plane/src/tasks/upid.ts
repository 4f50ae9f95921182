/** A task's identity, as PVE writes it into a UPID. */
export interface UpidFields {
  readonly node: string;
  readonly pid: number;
  readonly pstart: number;
  /** Epoch seconds. */
  readonly starttime: number;
  readonly type: string;
  readonly id: string;
  /** `user@realm`, or `user@realm!tokenid` for a token. */
  readonly user: string;
}

const UPID =
  /^UPID:([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?):([0-9A-F]{8}):([0-9A-F]{8,9}):([0-9A-F]{8}):([^:\s]+):([^:\s]*):([^:\s]+):$/;

/** `UPID:node:pid:pstart:starttime:type:id:user:` with PVE's upper-case hex fields and the trailing colon. */
export function formatUpid(task: UpidFields): string {
  const hex = (value: number) => value.toString(16).toUpperCase().padStart(8, '0');
  return `UPID:${task.node}:${hex(task.pid)}:${hex(task.pstart)}:${hex(task.starttime)}:${task.type}:${task.id}:${task.user}:`;
}

/** The fields of a UPID, or null when the text is not one. */
export function parseUpid(text: string): UpidFields | null {
  const match = UPID.exec(text);
  if (!match) return null;
  const [, node = '', pid = '', pstart = '', starttime = '', type = '', id = '', user = ''] = match;
  return { node, pid: parseInt(pid, 16), pstart: parseInt(pstart, 16), starttime: parseInt(starttime, 16), type, id, user };
}
