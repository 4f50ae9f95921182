import { z } from 'zod';
import { GuestType } from '../commands/guest.js';
import { Vmid } from '../fields.js';

/**
 * Control plane → agent: the node's HA lease was renewed (docs/ha.md). The control plane wrote
 * `nodes.lease_until = now + ttlMs` after heartbeat `upTo` arrived, and sends this once that write
 * committed; only for a heartbeat newer than the last one it granted, so that a lease never outlives
 * the agent's heartbeats.
 *
 * The agent counts the lease from the moment it SENT heartbeat `upTo` (never from this frame's
 * arrival): if no newer lease comes, it stops every guest of `guests` by itself (self-fence) at
 * that moment + `ttlMs` - 5 s, so it is done before the lease runs out on the control-plane side,
 * and then starts none of them until a newer lease arrives. An empty `guests` disarms the fence.
 *
 * Not re-sent and never acknowledged: a lost lease is made good by the next one. A lease for a
 * heartbeat the agent has forgotten (or never sent) changes nothing.
 */
export const LeaseFrame = z.object({
  type: z.literal('lease'),
  /** The `n` of the heartbeat after which the lease was written. */
  upTo: z.int().min(1),
  /** How long the lease lasts on the control-plane side (`CORRAL_HA_LEASE_S`). */
  ttlMs: z.int().min(1000).max(3_600_000),
  /** The HA guests on this node (every HA resource not `ignored`), which the agent stops if the lease runs out. */
  guests: z.array(z.object({ type: GuestType, vmid: Vmid })).max(10_000),
});
export type LeaseFrame = z.infer<typeof LeaseFrame>;
