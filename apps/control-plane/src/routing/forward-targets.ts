import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { AgentHub } from '../agents/agent-hub.js';
import { CONFIG, type Config } from '../config/config.js';
import { DatabaseNotifications } from '../database/notifications.js';
import { ApiError } from '../errors/api-error.js';
import { databaseUnreachable } from '../errors/database-unreachable.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { FORWARDED_HEADER, verifyForwarding, type Forwarding } from '../replicas/forward-signature.js';
import { ReplicaDirectory } from '../replicas/replica-directory.js';
import { ReplicaPeers } from '../replicas/replica-peers.js';
import { guestOfPath, nodeOfPath, servedByAnyReplica } from './node-of-path.js';

/** The answer to a request whose forwarding header is not signed with the cluster's secret. */
const FORGED = new ApiError('AUTHENTICATION_FAILED', 'invalid forwarding signature: only control-plane replicas forward requests');

/** Where a request goes: served here (a forwarded one saying for which client), forwarded to another replica, or refused (a forged forwarding, a view that cannot catch up). */
export type Route =
  | { readonly kind: 'here'; readonly forwarded?: Forwarding }
  | { readonly kind: 'forward'; readonly node: string; readonly address: string }
  | { readonly kind: 'refused'; readonly error: ApiError };

const SERVED_HERE: Route = { kind: 'here' };

/**
 * Decides where each request is served (docs/scale-out.md): a request for a node (its path is
 * `/api2/json/nodes/{node}/...`, or an HA move of one of its guests) whose agent another replica
 * holds is forwarded there with its credentials, so that the caller, the permission checks and the
 * task's owner stay the caller's. The reads of its tasks and of its guests are served here (the
 * guests' once this replica's view holds every change committed before the request came). A
 * request another replica forwarded is served here, never forwarded again; one whose forwarding
 * header is not signed with the cluster's secret is refused.
 */
@Injectable()
export class ForwardTargets {
  private readonly secret: string | null;

  constructor(
    private readonly hub: AgentHub,
    private readonly directory: ReplicaDirectory,
    private readonly peers: ReplicaPeers,
    private readonly guests: GuestView,
    private readonly notifications: DatabaseNotifications,
    @Inject(CONFIG) config: Config,
  ) {
    this.secret = config.clusterSecret;
  }

  /** The route of a request by its method, URL (path and query) and headers; null for the common case, served here with nothing to look up. */
  route(method: string, url: string, headers: IncomingHttpHeaders): Route | Promise<Route> | null {
    const header = headers[FORWARDED_HEADER];
    if (header !== undefined) {
      const forwarded = this.secret !== null && typeof header === 'string' ? verifyForwarding(this.secret, header, { method, url }) : null;
      return forwarded === null ? { kind: 'refused', error: FORGED } : { kind: 'here', forwarded };
    }
    if (!this.peers.enabled) return null;
    const anywhere = servedByAnyReplica(method, url);
    if (anywhere === 'database') return null;
    const node = nodeOfPath(url) ?? this.nodeOfGuest(guestOfPath(url));
    if (node === null || this.hub.holds(node)) return null;
    if (anywhere === 'view') return this.caughtUp();
    const replica = this.directory.holderElsewhere(node);
    if (replica === null) return null;
    return this.directory.address(replica).then((address) => (address === null ? SERVED_HERE : { kind: 'forward', node, address }));
  }

  /** Served here once the view holds every change committed before now, whichever replica made it; refused (503) while it cannot know. */
  private caughtUp(): Promise<Route> {
    return this.notifications.barrier().then(
      () => SERVED_HERE,
      (error: unknown) => ({ kind: 'refused', error: error instanceof ApiError ? error : databaseUnreachable(error) }),
    );
  }

  private nodeOfGuest(vmid: number | null): string | null {
    return vmid === null ? null : (this.guests.get(vmid)?.row.node ?? null);
  }
}
