import type { LeaseFrame } from '@corral/protocol';
import { jsonLogger } from '../logging/logger.js';
import { FENCE_MARGIN_MS, HaLease, REMEMBERED_HEARTBEATS, type Fence, type LeaseGuest } from './ha-lease.js';

const TTL_MS = 30_000;
const WEB: LeaseGuest = { type: 'qemu', vmid: 100 };
const DB: LeaseGuest = { type: 'lxc', vmid: 200 };

function setup() {
  const calls: string[] = [];
  const fence: Fence = {
    fence: (guests, renewedAt) => calls.push(`fence ${guests.map((guest) => guest.vmid).join(',')} renewed ${renewedAt.toISOString()}`),
    lift: () => calls.push('lift'),
    cover: () => undefined,
  };
  const lines: string[] = [];
  const lease = new HaLease({ fence, logger: jsonLogger((line) => lines.push(line)) });
  const grant = (upTo: number, guests: LeaseGuest[] = [WEB, DB], ttlMs = TTL_MS) =>
    lease.grant({ type: 'lease', upTo, ttlMs, guests } satisfies LeaseFrame);
  return { lease, calls, lines, grant };
}

describe('the HA lease', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-05-04T09:30:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('numbers the heartbeats from 1, one more each', () => {
    const { lease } = setup();
    expect([lease.heartbeat(), lease.heartbeat(), lease.heartbeat()]).toEqual([
      { type: 'heartbeat', n: 1 },
      { type: 'heartbeat', n: 2 },
      { type: 'heartbeat', n: 3 },
    ]);
  });

  it('fences at the send time of the granted heartbeat + ttl - margin, not at the lease arrival', () => {
    const { lease, calls, grant } = setup();
    lease.heartbeat(); // n 1, sent at t0
    jest.advanceTimersByTime(4_000); // the lease arrives 4 s later (a slow link, a slow database)
    grant(1);
    jest.advanceTimersByTime(TTL_MS - FENCE_MARGIN_MS - 4_000 - 1);
    expect(calls).toEqual([]);
    expect(lease.fenced).toBe(false);
    jest.advanceTimersByTime(1);
    expect(calls).toEqual(['fence 100,200 renewed 2026-05-04T09:30:04.000Z']);
    expect(lease.fenced).toBe(true);
  });

  it('re-arms at each newer lease, counting from its own heartbeat', () => {
    const { lease, calls, grant } = setup();
    lease.heartbeat(); // n 1 at 0
    grant(1);
    jest.advanceTimersByTime(2_000);
    lease.heartbeat(); // n 2 at 2 s
    jest.advanceTimersByTime(10_000);
    grant(2); // arrives at 12 s: the deadline is 2 s + 25 s
    jest.advanceTimersByTime(27_000 - 12_000 - 1);
    expect(calls).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(calls).toHaveLength(1);
  });

  it('fences at once when the lease arrives after its own deadline', () => {
    const { calls, lease, grant } = setup();
    lease.heartbeat();
    jest.advanceTimersByTime(TTL_MS);
    grant(1);
    jest.advanceTimersByTime(0);
    expect(calls).toHaveLength(1);
  });

  it('disarms on a lease without guests, and arms again on the next one with guests', () => {
    const { lease, calls, grant } = setup();
    lease.heartbeat();
    grant(1);
    lease.heartbeat();
    grant(2, []);
    jest.advanceTimersByTime(10 * TTL_MS);
    expect(calls).toEqual([]);
    lease.heartbeat();
    grant(3, [WEB]);
    jest.advanceTimersByTime(TTL_MS);
    expect(calls).toEqual([expect.stringMatching(/^fence 100 renewed/)]);
  });

  it('ignores an older lease than the one it holds and a lease for a heartbeat it does not remember', () => {
    const { lease, calls, lines, grant } = setup();
    for (let n = 1; n <= REMEMBERED_HEARTBEATS + 2; n += 1) lease.heartbeat();
    grant(REMEMBERED_HEARTBEATS + 2, [WEB]);
    grant(REMEMBERED_HEARTBEATS + 1, []); // would disarm
    grant(2, []); // forgotten
    grant(REMEMBERED_HEARTBEATS + 3, []); // never sent
    expect(lines.filter((line) => line.includes('does not remember'))).toHaveLength(2);
    jest.advanceTimersByTime(TTL_MS);
    expect(calls).toHaveLength(1);
  });

  it('stays fenced without re-arming until a lease for a newer heartbeat lifts the fence', () => {
    const { lease, calls, grant } = setup();
    lease.heartbeat();
    grant(1);
    jest.advanceTimersByTime(TTL_MS);
    expect(calls).toHaveLength(1);
    grant(1); // the same lease again (late, or re-delivered): still fenced
    jest.advanceTimersByTime(10 * TTL_MS);
    expect(calls).toHaveLength(1);
    expect(lease.fenced).toBe(true);
    lease.heartbeat();
    grant(2, [DB]);
    expect(lease.fenced).toBe(false);
    expect(calls[1]).toBe('lift');
    jest.advanceTimersByTime(TTL_MS);
    expect(calls[2]).toMatch(/^fence 200 renewed/);
  });

  it('keeps counting across what the connection does: the deadline is a timer of the process', () => {
    const { lease, calls, grant } = setup();
    lease.heartbeat();
    grant(1);
    // No heartbeat, no lease: the websocket is down; nothing else is needed for the fence.
    jest.advanceTimersByTime(TTL_MS - FENCE_MARGIN_MS);
    expect(calls).toHaveLength(1);
  });

  it('fences no more once the agent closed it', () => {
    const { lease, calls, grant } = setup();
    lease.heartbeat();
    grant(1);
    lease.close();
    jest.advanceTimersByTime(TTL_MS);
    expect(calls).toEqual([]);
  });
});
