import { z } from 'zod';
import { NodeName, OpaqueId, Sequence, Timestamp } from '../fields.js';

/**
 * Agent → control plane, the first frame on every connection (after the credential was checked at
 * the websocket upgrade). The agent sends nothing else until `welcome` arrives.
 *
 * `session` names this run of the agent process: it is new at every start and kept across
 * reconnects, so that `(node, session, seq)` names one agent frame for good (see `AckFrame`).
 * `lastAck` is the highest sequence number the control plane acknowledged in this session; it is
 * absent on a session's first connection, and tells the control plane that the agent will now
 * re-send its frames after that number.
 *
 * On failure the control plane closes the socket: `unsupportedProtocol` when it does not speak
 * `protocol`, `nodeMismatch` when `node` is not the credential's node, `invalidFrame` or
 * `unexpectedFrame` otherwise (CLOSE_CODES).
 */
export const HelloFrame = z.object({
  type: z.literal('hello'),
  /** PROTOCOL_VERSION of the agent. */
  protocol: z.int().min(1),
  /** The agent's package version, for logs and the node's status. */
  agentVersion: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9.+~-]{0,63}$/, 'must be a version such as 0.1.0'),
  node: NodeName,
  session: OpaqueId,
  /**
   * What this agent can do beyond its protocol version: the driver it runs guests with
   * (`driver:pve`, `driver:native`, `driver:sim`) and optional host tools it found (`nft`, `lvm`, `zfs`).
   */
  capabilities: z.array(z.string().regex(/^[a-z0-9][a-z0-9:._-]{0,63}$/, 'must be a lower-case capability name')).max(64),
  lastAck: Sequence.optional(),
  /**
   * The requests of this session the agent still runs, or has answered without an acknowledgement
   * yet (the answers it re-sends after `welcome`). A request of the session that is in neither
   * never reached the agent, or its answer was handled: it will not be answered again. Absent from
   * an agent that does not say.
   */
  requests: z.array(OpaqueId).max(4096).optional(),
});
export type HelloFrame = z.infer<typeof HelloFrame>;

/**
 * Control plane → agent, the answer to `hello` when the control plane accepts the agent. From here
 * on both sides may send their other frames; the agent first re-sends what was not acknowledged.
 *
 * On failure (no `welcome` within a few seconds, or a `protocol` the agent does not speak) the agent
 * closes and reconnects with backoff.
 */
export const WelcomeFrame = z.object({
  type: z.literal('welcome'),
  /** The protocol version both sides speak on this connection. */
  protocol: z.int().min(1),
  /** The node this connection belongs to, as the control plane knows it. */
  node: NodeName,
  /** How often the agent sends `heartbeat` (2000 ms); the node is down after 10 s without one. */
  heartbeatMs: z.int().min(100).max(60_000),
  /** The control plane's clock, so the agent can log a skew that would confuse task times. */
  time: Timestamp,
  /**
   * Where the control plane's replicas are reached (`https://host:port`), this one included: the
   * agent tries them when the replica it is connected to goes away. Absent from a control plane
   * that does not say.
   */
  replicas: z
    .array(z.url({ protocol: /^https$/, error: 'must be an https:// URL' }))
    .max(64)
    .optional(),
  /**
   * What this control plane accepts beyond its protocol version: `runtime-changes`, runtime reports
   * of what changed (`RuntimeReport.since`). Absent from a control plane that accepts none.
   */
  accepts: z
    .array(z.string().regex(/^[a-z0-9][a-z0-9:._-]{0,63}$/, 'must be a lower-case feature name'))
    .max(64)
    .optional(),
});
export type WelcomeFrame = z.infer<typeof WelcomeFrame>;

/** In `welcome.accepts`: the control plane applies runtime reports of changes (`RuntimeReport.since`). */
export const RUNTIME_CHANGES = 'runtime-changes';

/**
 * Agent → control plane, every `welcome.heartbeatMs`. Without one for 10 s the control plane marks
 * the node offline, records a `node-down` event and closes with `heartbeatTimeout`.
 */
export const HeartbeatFrame = z.object({
  type: z.literal('heartbeat'),
  /**
   * The heartbeat's number: 1 for the agent process's first, then one more per heartbeat, across
   * reconnects. A `lease` names the heartbeat it answers by this number (the agent remembers when
   * it sent each). Absent from an agent that holds no HA lease: the control plane grants it none.
   */
  n: z.int().min(1).optional(),
});
export type HeartbeatFrame = z.infer<typeof HeartbeatFrame>;
