import { Controller, Inject } from '@nestjs/common';
import { AgentHub } from '../../agents/agent-hub.js';
import { CONFIG, type Config } from '../../config/config.js';
import { DatabaseNotifications } from '../../database/notifications.js';
import { Endpoint, type ResultOf } from '../../http/endpoint.js';
import { JsonText, JsonTexts } from '../../http/json-text.js';
import { NodeView, type NodeState } from '../../inventory/nodes/node-view.js';
import { CLUSTER_STATUS_ENDPOINT, type ClusterStatusNode } from './cluster-status.endpoints.js';

/** `GET /cluster/status`, from the in-memory node view. */
@Controller()
export class ClusterStatusController {
  constructor(
    private readonly view: NodeView,
    private readonly hub: AgentHub,
    private readonly database: DatabaseNotifications,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  private readonly texts = new JsonTexts();

  /** Each node's entry is kept as JSON while its state is the same object (it is replaced on any change) and its agent is where it was. */
  @Endpoint(CLUSTER_STATUS_ENDPOINT)
  status(): JsonText<ResultOf<typeof CLUSTER_STATUS_ENDPOINT>> {
    const nodes = this.view.list();
    // The database connection that carries every replica's changes is this replica's link to the cluster.
    const cluster = {
      type: 'cluster',
      id: 'cluster',
      name: this.config.clusterName,
      nodes: nodes.length,
      quorate: this.database.listening,
      version: 1,
    };
    return JsonText.array([
      Buffer.from(JSON.stringify(cluster)),
      ...nodes.map((node) => {
        const local = this.hub.holds(node.name);
        return this.texts.text(node, local, undefined, () => nodeEntry(node, local));
      }),
    ]);
  }
}

function nodeEntry(node: NodeState, local: boolean): ClusterStatusNode {
  const inventory = node.online ? node.inventory : null;
  return {
    type: 'node',
    id: `node/${node.name}`,
    name: node.name,
    node: node.name,
    status: node.online ? 'online' : 'offline',
    online: node.online ? 1 : 0,
    level: '',
    local: local ? 1 : 0,
    uptime: inventory?.uptime ?? 0,
    cpu: inventory?.cpu ?? 0,
    mem: inventory?.mem ?? 0,
    maxmem: node.inventory?.maxmem ?? 0,
    disk: inventory?.disk ?? 0,
    maxdisk: node.inventory?.maxdisk ?? 0,
  };
}
