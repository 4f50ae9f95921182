import { ApiError } from '../../errors/api-error.js';
import { VNC_PORTS, VNC_TICKET_LIFETIME_MS, VncTickets, type VncTarget } from './vnc-tickets.js';

const FOR = { user: 'vmuser@pve', node: 'pve1', vmid: 100 };

/** Tickets on a clock the test moves. */
function tickets() {
  let now = Date.UTC(2025, 0, 1);
  const wasted: string[] = [];
  const store = new VncTickets<string>({ now: () => now, wasted: (value) => wasted.push(value) });
  return { store, wasted, later: (ms: number) => void (now += ms) };
}

/** The 403 a refused redemption throws, or null when it succeeded. */
function refusal(redeem: () => unknown): { status: string; message: string } | null {
  try {
    redeem();
    return null;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.code, message: error.message };
  }
}

describe('VNC tickets', () => {
  it("issue PVE's form with a port in PVE's VNC range, and open their console once for the caller, VM and port they name", () => {
    const { store } = tickets();
    const { ticket, port } = store.issue(FOR, 'console');
    expect(ticket).toMatch(/^PVEVNC:[0-9A-F]{8}::[A-Za-z0-9_-]{43}$/);
    expect(port).toBeGreaterThanOrEqual(VNC_PORTS.first);
    expect(port).toBeLessThanOrEqual(VNC_PORTS.last);
    expect(store.redeem(ticket, { ...FOR, port })).toBe('console');
  });

  it('refuse a ticket used before', () => {
    const { store } = tickets();
    const { ticket, port } = store.issue(FOR, 'console');
    store.redeem(ticket, { ...FOR, port });
    expect(refusal(() => store.redeem(ticket, { ...FOR, port }))).toEqual({
      status: 'PERMISSION_DENIED',
      message: expect.stringContaining('invalid VNC ticket: it is unknown, used or expired'),
    });
  });

  it('refuse a ticket 40 s after it was issued, and take one just before', () => {
    const { store, later } = tickets();
    const young = store.issue(FOR, 'young');
    const old = store.issue(FOR, 'old');
    later(VNC_TICKET_LIFETIME_MS - 1);
    expect(store.redeem(young.ticket, { ...FOR, port: young.port })).toBe('young');
    later(1);
    expect(refusal(() => store.redeem(old.ticket, { ...FOR, port: old.port }))).toEqual({
      status: 'PERMISSION_DENIED',
      message: expect.stringContaining('unknown, used or expired'),
    });
  });

  it.each<[string, (port: number) => VncTarget]>([
    ['another user', (port) => ({ ...FOR, port, user: 'auditor@pve' })],
    ["the user's token", (port) => ({ ...FOR, port, user: 'vmuser@pve!console' })],
    ['another VM', (port) => ({ ...FOR, port, vmid: 101 })],
    ['another node', (port) => ({ ...FOR, port, node: 'pve2' })],
    ['another port', (port) => ({ ...FOR, port: port === VNC_PORTS.last ? port - 1 : port + 1 })],
  ])('refuse a ticket presented for %s, and use it up, its value wasted', (_case, presented) => {
    const { store, wasted } = tickets();
    const { ticket, port } = store.issue(FOR, 'console');
    expect(refusal(() => store.redeem(ticket, presented(port)))).toEqual({
      status: 'PERMISSION_DENIED',
      message: 'invalid VNC ticket: it was issued for another caller, VM or port',
    });
    expect(wasted).toEqual(['console']);
    expect(refusal(() => store.redeem(ticket, { ...FOR, port }))).toEqual({
      status: 'PERMISSION_DENIED',
      message: expect.stringContaining('unknown, used or expired'),
    });
    expect(wasted).toEqual(['console']);
  });

  it('refuse a revoked ticket and one never issued', () => {
    const { store } = tickets();
    const { ticket, port } = store.issue(FOR, 'console');
    store.revoke(ticket);
    expect(refusal(() => store.redeem(ticket, { ...FOR, port }))).not.toBeNull();
    expect(refusal(() => store.redeem(`${ticket.slice(0, -1)}x`, { ...FOR, port }))).not.toBeNull();
  });
});
