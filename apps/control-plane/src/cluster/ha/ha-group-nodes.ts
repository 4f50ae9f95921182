import { NODE_NAME_PATTERN } from '@corral/protocol';
import type { HaGroupNode } from '../../inventory/ha/ha-group.entity.js';

/** An HA group's `nodes` that does not parse: the message says which item and why. */
export class GroupNodesError extends Error {}

/**
 * PVE's `nodes` of an HA group: `node1:2,node2`, a list (commas, semicolons or spaces) of node
 * names, each with an optional priority, a non-negative integer (none counts as 0). In the order
 * given; a node at most once.
 */
export function parseGroupNodes(text: string): HaGroupNode[] {
  const items = text.split(/[,;\s]+/).filter(Boolean);
  if (items.length === 0) throw new GroupNodesError('give at least one node');
  const nodes: HaGroupNode[] = [];
  for (const item of items) {
    const [node = '', priority, ...rest] = item.split(':');
    if (!NODE_NAME_PATTERN.test(node)) throw new GroupNodesError(`'${item}': '${node}' is not a node name`);
    if (rest.length > 0 || (priority !== undefined && !/^\d{1,9}$/.test(priority)))
      throw new GroupNodesError(`'${item}': the priority must be a non-negative integer`);
    if (nodes.some((known) => known.node === node)) throw new GroupNodesError(`node '${node}' is given twice`);
    nodes.push({ node, priority: priority === undefined ? null : Number(priority) });
  }
  return nodes;
}

/** The nodes as PVE shows them: `node1:2,node2`. */
export function groupNodesText(nodes: readonly HaGroupNode[]): string {
  return nodes.map(({ node, priority }) => (priority === null ? node : `${node}:${priority}`)).join(',');
}
