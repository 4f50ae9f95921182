import { API_PREFIX } from '../http/endpoint-registry.js';

const NODE_PATH = new RegExp(`^${API_PREFIX}/nodes/([^/?]+)(?:[/?]|$)`);

/** The HA moves, which act on a guest's node without naming it: PVE's `ha-manager migrate|relocate <sid>`. */
const HA_MOVE_PATH = new RegExp(
  `^${API_PREFIX}/cluster/ha/resources/(?:(?:vm|ct)(?::|%3A))?(\\d{1,9})/(?:migrate|relocate)(?:[/?]|$)`,
  'i',
);

/** A node's task list, and one task, its status (`?wait=` included) or its log: read from the database, where every replica's tasks are. */
const TASK_READ_PATH = new RegExp(`^${API_PREFIX}/nodes/[^/?]+/tasks(?:/[^/?]+(?:/(?:status|log))?)?(?:\\?|$)`);

/** The history of a node, of a guest or of a storage on it, and its graphs (an answer of 501): read from the database. */
const HISTORY_READ_PATH = new RegExp(`^${API_PREFIX}/nodes/[^/?]+(?:/(?:qemu|lxc)/\\d+|/storage/[^/?]+)?/rrd(?:data)?/?(?:\\?|$)`);

/** A node's guest list, and one guest's index, config, pending changes or current status: read from the guest view every replica keeps. */
const GUEST_READ_PATH = new RegExp(`^${API_PREFIX}/nodes/[^/?]+/(?:qemu|lxc)(?:/\\d+(?:/(?:config|pending|status/current))?)?/?(?:\\?|$)`);

/**
 * How a request for a node is served by whichever replica it reaches, without forwarding it to the
 * replica holding the node's agent; null for a request that goes to that replica.
 * - `database`: the reads of tasks, from PostgreSQL, so that a client following a task keeps doing
 *   so while that replica is down and its agent moves; and of the history, kept there too;
 * - `view`: the reads of guests, from this replica's guest view once it holds every change
 *   committed before the request came (`DatabaseNotifications.barrier`).
 */
export function servedByAnyReplica(method: string, url: string): 'database' | 'view' | null {
  if (method !== 'GET') return null;
  if (TASK_READ_PATH.test(url) || HISTORY_READ_PATH.test(url)) return 'database';
  return GUEST_READ_PATH.test(url) ? 'view' : null;
}

/** The guest a request's URL acts on on its node without naming the node (an HA move); null for any other. */
export function guestOfPath(url: string): number | null {
  const match = HA_MOVE_PATH.exec(url);
  return match?.[1] ? Number(match[1]) : null;
}

/** The node a request's URL names (`/api2/json/nodes/{node}/...`), decoded; null for any other path or a malformed name. */
export function nodeOfPath(url: string): string | null {
  const match = NODE_PATH.exec(url);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}
