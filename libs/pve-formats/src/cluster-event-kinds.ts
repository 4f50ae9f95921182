/**
 * The kinds of the cluster's events (`GET /cluster/events`). The base kinds, then those Corral
 * records beyond them, listed apart so the base ones never change for them: `node-up`, a node back
 * online after it was marked down; the HA manager's `ha-fence` (a node with HA guests lost and its
 * lease awaited), `ha-recover` (a guest of a lost node moved to another) and `ha-error` (a guest
 * the HA manager gave up on). A server-sent event's `event:` field is its kind, so a browser
 * follows the stream by listening to each of them.
 */
export const EVENT_KINDS = [
  'vm-start',
  'vm-stop',
  'vm-create',
  'vm-delete',
  'ct-start',
  'ct-stop',
  'backup-start',
  'backup-end',
  'node-down',
  'cluster-join',
] as const;

export const CORRAL_EVENT_KINDS = ['node-up', 'ha-fence', 'ha-recover', 'ha-error'] as const;

/** Every kind the event table holds: what readers, filters and matchers accept. */
export const ALL_EVENT_KINDS = [...EVENT_KINDS, ...CORRAL_EVENT_KINDS] as const;
export type EventKind = (typeof ALL_EVENT_KINDS)[number];
