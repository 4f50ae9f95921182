import { Controller, Inject } from '@nestjs/common';
import { AgentHub } from '../../agents/agent-hub.js';
import { CONFIG, type Config } from '../../config/config.js';
import { DatabaseNotifications } from '../../database/notifications.js';
import { Endpoint, type ResultOf } from '../../http/endpoint.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import { CLUSTER_STATUS_ENDPOINT } from './cluster-status.endpoints.js';

/** `GET /cluster/status`, from the in-memory node view. */
@Controller()
export class ClusterStatusController {
  constructor(
    private readonly view: NodeView,
    private readonly hub: AgentHub,
    private readonly database: DatabaseNotifications,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Endpoint(CLUSTER_STATUS_ENDPOINT)
  status(): ResultOf<typeof CLUSTER_STATUS_ENDPOINT> {
    const nodes = this.view.list();
    return [
      // The database connection that carries every replica's changes is this replica's link to the cluster.
      { type: 'cluster', id: 'cluster', name: this.config.clusterName, nodes: nodes.length, quorate: this.database.listening, version: 1 },
      ...nodes.map((node) => {
        const inventory = node.online ? node.inventory : null;
        return {
          type: 'node' as const,
          id: `node/${node.name}`,
          name: node.name,
          node: node.name,
          status: node.online ? ('online' as const) : ('offline' as const),
          online: node.online ? (1 as const) : (0 as const),
          level: '' as const,
          local: this.hub.holds(node.name) ? (1 as const) : (0 as const),
          uptime: inventory?.uptime ?? 0,
          cpu: inventory?.cpu ?? 0,
          mem: inventory?.mem ?? 0,
          maxmem: node.inventory?.maxmem ?? 0,
          disk: inventory?.disk ?? 0,
          maxdisk: node.inventory?.maxdisk ?? 0,
        };
      }),
    ];
  }
}
