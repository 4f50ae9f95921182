import { z } from 'zod';
import { Sequence } from '../fields.js';

/**
 * Control plane → agent: every agent frame with `seq` up to `upTo` is safely handled (a result
 * written to its task, an event to the event table, a report applied), so the agent may forget them.
 *
 * How sequence numbers work:
 * - Only the agent numbers its frames, because only its frames must survive a lost connection:
 *   `result`, `failure`, `log`, `report` and `event` carry `seq`, one counter per agent session
 *   (`hello.session`) that starts at 1 and grows by 1 per frame, across reconnects. `hello` and
 *   `heartbeat` are not numbered. The control plane's requests need no numbers: an unanswered
 *   request is simply sent again with its `id`.
 * - The agent keeps every numbered frame until an `ack` covers it. After a reconnect it sends
 *   `hello.lastAck`, then re-sends the unacknowledged frames in order with their old numbers, before
 *   any new frame. It may leave out a report that a newer report of the same kind replaces.
 * - Acks are cumulative and may be batched. Because a connection delivers in order and re-sends come
 *   first, receiving `seq` n means everything before it arrived or was deliberately left out.
 * - A frame may arrive twice (its ack was lost with the connection, or it reached another replica):
 *   the control plane treats `(node, session, seq)` as handled once.
 * - A restarted agent process begins a new session. It keeps the unacknowledged events and the
 *   newest report of each kind on disk, and sends them first in its new session; each event carries
 *   its `origin` (`EventFrame`), the identity under which the control plane records it once. The
 *   results, failures and logs of the previous process are not sent again: the control plane ended
 *   that session's requests when the new one said hello.
 *
 * On failure (an ack above anything the agent sent) the agent closes with `unexpectedFrame`.
 */
export const AckFrame = z.object({
  type: z.literal('ack'),
  upTo: Sequence,
});
export type AckFrame = z.infer<typeof AckFrame>;
