/**
 * Websocket close codes (the application range 4000-4999) that say why one side ended the
 * connection. The close reason carries the detail (at most 123 bytes, the websocket limit). Except
 * for `unsupportedProtocol` and `nodeMismatch`, which need an operator, the agent reconnects with
 * backoff after any close. A side that is shutting down closes with the standard 1001 (going away).
 */
export const CLOSE_CODES = {
  /** A frame was not JSON or failed its schema; the reason is the validation message. */
  invalidFrame: 4000,
  /** A valid frame that this side may not send, or not yet: anything before `hello`/`welcome`, a second `hello`, an `ack` from the agent. */
  unexpectedFrame: 4001,
  /** The control plane does not speak the `protocol` of the agent's `hello`; the agent must be upgraded. */
  unsupportedProtocol: 4002,
  /** `hello.node` is not the node the agent's credential was issued to. */
  nodeMismatch: 4003,
  /** No heartbeat within the node-down window (10 s): the node is marked offline. */
  heartbeatTimeout: 4004,
  /** A newer connection of the same node took over; the old one is closed so that only one is live. */
  replaced: 4005,
} as const;
