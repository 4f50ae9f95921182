import { z } from 'zod';
import { OpaqueId, Sequence, Timestamp, Vmid } from '../fields.js';

/**
 * The event kinds an agent witnesses on its host. The others are the control plane's own:
 * `vm-create` and `vm-delete` happen in its database (guest configuration is its truth), `node-down`
 * is its verdict on a silent agent, and `cluster-join` is recorded by the join itself.
 */
export const AgentEventKind = z.enum(['vm-start', 'vm-stop', 'ct-start', 'ct-stop', 'backup-start', 'backup-end']);
export type AgentEventKind = z.infer<typeof AgentEventKind>;

/**
 * Agent → control plane: something happened to a guest on this host, including changes nobody asked
 * for (a guest shut down from inside). Fields as an event's notification body, without `node`: the
 * control plane takes the node from the authenticated connection, never from the agent's word.
 * Re-sent after a reconnect until acknowledged (`AckFrame`); the control plane writes it to the
 * event table once per `(node, session, seq)`. The agent keeps its unacknowledged events on disk: a
 * new agent process sends those of its predecessor again, numbered in its own session, each with the
 * `origin` it was first sent with, and the control plane writes such an event once per
 * `(node, origin.session, origin.seq)`.
 */
export const EventFrame = z.object({
  type: z.literal('event'),
  seq: Sequence,
  event: AgentEventKind,
  vmid: Vmid,
  /** When it happened on the host. */
  timestamp: Timestamp,
  /** Absent when first sent; on an event a previous agent process stored: the session and number it was first sent with. */
  origin: z.object({ session: OpaqueId, seq: Sequence }).optional(),
});
export type EventFrame = z.infer<typeof EventFrame>;
