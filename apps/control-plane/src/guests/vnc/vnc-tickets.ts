import { randomBytes, randomInt } from 'node:crypto';
import { sha256 } from '../../access/auth/authenticator.js';
import { ApiError } from '../../errors/api-error.js';

/** How long a VNC ticket waits for its websocket: PVE's 40 s. */
export const VNC_TICKET_LIFETIME_MS = 40_000;
/** PVE's VNC ports. Here a `port` only names a console: no TCP port is opened. */
export const VNC_PORTS = { first: 5900, last: 5999 } as const;

/** What a ticket is good for: one caller (a token id for a token), one VM on one node, and the `port` answered with it. */
export interface VncTarget {
  readonly user: string;
  readonly node: string;
  readonly vmid: number;
  readonly port: number;
}

/**
 * One-time VNC tickets: each is good once, for its target, for VNC_TICKET_LIFETIME_MS after it was
 * issued (PVE's are good for 40 s but not once). They are kept in this replica's memory, only as
 * hashes, with the value they stand for: a ticket is good on the replica that issued it, the one that
 * holds the node's agent and the console's stream.
 */
export class VncTickets<T> {
  private readonly issued = new Map<string, { readonly target: VncTarget; readonly expires: number; readonly value: T }>();

  /** `wasted` gets the value of a ticket that was used up without opening it (presented for another target). */
  constructor(private readonly options: { readonly now?: () => number; readonly wasted?: (value: T) => void } = {}) {}

  issue(target: Omit<VncTarget, 'port'>, value: T): { ticket: string; port: number } {
    const now = this.now();
    const port = randomInt(VNC_PORTS.first, VNC_PORTS.last + 1);
    // PVE's form `PVEVNC:<hex time>::<secret>`; clients pass it on unread.
    const ticket = `PVEVNC:${Math.floor(now / 1000)
      .toString(16)
      .toUpperCase()
      .padStart(8, '0')}::${randomBytes(32).toString('base64url')}`;
    this.issued.set(sha256(ticket), { target: { ...target, port }, expires: now + VNC_TICKET_LIFETIME_MS, value });
    return { ticket, port };
  }

  /**
   * The ticket's value, if it is good for `presented`. Presenting a ticket uses it up, whether or not
   * it fits: a ticket seen by someone else is no use to them afterwards either. Throws a 403 otherwise.
   */
  redeem(ticket: string, presented: VncTarget): T {
    const key = sha256(ticket);
    const entry = this.issued.get(key);
    this.issued.delete(key);
    if (!entry || entry.expires <= this.now()) {
      throw invalidTicket('it is unknown, used or expired (a ticket is good once, for 40 s, on the control-plane replica that issued it)');
    }
    const { target } = entry;
    if (
      target.user !== presented.user ||
      target.node !== presented.node ||
      target.vmid !== presented.vmid ||
      target.port !== presented.port
    ) {
      this.options.wasted?.(entry.value);
      throw invalidTicket('it was issued for another caller, VM or port');
    }
    return entry.value;
  }

  /** Withdraws a ticket not used yet: its console ended. */
  revoke(ticket: string): void {
    this.issued.delete(sha256(ticket));
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

function invalidTicket(why: string): ApiError {
  return new ApiError('PERMISSION_DENIED', `invalid VNC ticket: ${why}`, { reason: `permission denied - invalid VNC ticket: ${why}` });
}
