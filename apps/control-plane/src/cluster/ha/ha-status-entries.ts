import type { HaSnapshot } from './ha-status.repository.js';
import type { HaManagerStatus, HaStatusEntry } from './ha-status.endpoints.js';
import { sidOf } from './manager/sid.js';

/** A manager whose last round is older than this is gone (it writes one every second). */
export const MANAGER_STALE_MS = 10_000;

/** Who answers, as PVE's quorum entry names its local node, and whether it is in touch with the database. */
export interface Quorum {
  readonly node: string;
  readonly quorate: boolean;
}

type LrmState = 'active' | 'idle' | 'lost';

/**
 * PVE's `/cluster/ha/status/current`: the quorum, the manager if it ran in the
 * last MANAGER_STALE_MS, each node's local resource manager, each resource.
 */
export function currentEntries(snapshot: HaSnapshot, quorum: Quorum): HaStatusEntry[] {
  const entries: HaStatusEntry[] = [
    {
      id: 'quorum',
      type: 'quorum',
      node: quorum.node,
      status: quorum.quorate ? 'OK' : `No quorum on node '${quorum.node}'!`,
      quorate: quorum.quorate ? 1 : 0,
    },
  ];
  const manager = liveManager(snapshot);
  if (manager !== null) {
    entries.push({
      id: 'master',
      type: 'master',
      node: manager.holder,
      status: `${manager.holder} (active, ${ctime(manager.lastRound)})`,
      timestamp: epoch(manager.lastRound),
    });
  }
  for (const node of snapshot.nodes) {
    const seen = node.lastSeen ?? node.joinedAt;
    entries.push({
      id: `lrm:${node.name}`,
      type: 'lrm',
      node: node.name,
      status: `${node.name} (${lrmState(snapshot, node)}, ${ctime(seen)})`,
      timestamp: epoch(seen),
      ...(node.leaseUntil !== null ? { lease_until: epoch(node.leaseUntil) } : {}),
    });
  }
  for (const resource of snapshot.resources) {
    const sid = sidOf(resource);
    entries.push({
      id: `service:${sid}`,
      type: 'service',
      sid,
      node: resource.node,
      crm_state: resource.crmState,
      state: resource.crmState,
      request_state: resource.state,
      status: `${sid} (${resource.node}, ${resource.crmState})`,
      ...(resource.group !== null ? { group: resource.group } : {}),
      max_restart: resource.maxRestart,
      max_relocate: resource.maxRelocate,
      ...(resource.comment !== null ? { comment: resource.comment } : {}),
    });
  }
  return entries;
}

/** PVE's `manager_status`: the manager's view of nodes and resources, the quorum, and each node's LRM. */
export function managerStatus(snapshot: HaSnapshot, quorum: Quorum): HaManagerStatus {
  const { manager } = snapshot;
  return {
    manager_status: {
      ...(manager !== null ? { master_node: manager.holder } : {}),
      node_status: Object.fromEntries(
        snapshot.nodes.map((node) => [node.name, node.online ? 'online' : hasHaGuests(snapshot, node.name) ? 'fence' : 'unknown'] as const),
      ),
      service_status: Object.fromEntries(
        snapshot.resources.map((resource) => [sidOf(resource), { node: resource.node, state: resource.crmState }]),
      ),
      ...(manager !== null ? { timestamp: epoch(manager.lastRound) } : {}),
    },
    quorum: { node: quorum.node, quorate: quorum.quorate ? '1' : '0' },
    lrm_status: Object.fromEntries(
      snapshot.nodes.map((node) => {
        const state = lrmState(snapshot, node);
        return [
          node.name,
          {
            mode: 'active' as const,
            state: state === 'idle' ? ('wait_for_agent_lock' as const) : state,
            timestamp: epoch(node.lastSeen ?? node.joinedAt),
          },
        ];
      }),
    ),
  };
}

function liveManager(snapshot: HaSnapshot): HaSnapshot['manager'] {
  const { manager, now } = snapshot;
  return manager !== null && now.getTime() - manager.lastRound.getTime() < MANAGER_STALE_MS ? manager : null;
}

/** active: online with HA guests (not `ignored`) to run; idle: online without; lost: offline. */
function lrmState(snapshot: HaSnapshot, node: HaSnapshot['nodes'][number]): LrmState {
  if (!node.online) return 'lost';
  return hasHaGuests(snapshot, node.name) ? 'active' : 'idle';
}

function hasHaGuests(snapshot: HaSnapshot, node: string): boolean {
  return snapshot.resources.some((resource) => resource.node === node && resource.state !== 'ignored');
}

function epoch(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** C's ctime() in local time, as PVE's status strings show times: `Wed Jun 30 21:49:08 1993`. */
export function ctime(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  return `${DAYS[date.getDay()]} ${MONTHS[date.getMonth()]} ${String(date.getDate()).padStart(2, ' ')} ${time} ${date.getFullYear()}`;
}
