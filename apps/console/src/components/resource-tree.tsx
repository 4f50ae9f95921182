import { useMemo, useState } from 'react';
import AngleDownIcon from '@patternfly/react-icons/dist/esm/icons/angle-down-icon';
import AngleRightIcon from '@patternfly/react-icons/dist/esm/icons/angle-right-icon';
import { isGuest, type Resource } from '../api/resources';
import { href, type Route } from '../routing';
import { StatusIcon } from './status-icon';
import { VirtualRows } from './virtual-rows';

const ROW_HEIGHT = 32;

interface Row {
  readonly resource: Resource;
  readonly depth: number;
  readonly route: Route;
  /** For a node: whether its guests and storages are shown. */
  readonly expanded?: boolean;
}

/** Nodes with their guests (by vmid) and storages under them, then the pools: one row each, virtualised. */
export function ResourceTree({
  resources,
  current,
  height,
}: {
  readonly resources: readonly Resource[];
  readonly current: Route;
  readonly height: number;
}) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const rows = useMemo(() => treeRows(resources, collapsed), [resources, collapsed]);
  const toggle = (node: string) =>
    setCollapsed((before) => {
      const after = new Set(before);
      if (!after.delete(node)) after.add(node);
      return after;
    });
  const currentHref = href(current);
  return (
    <VirtualRows
      label="Resources"
      rows={rows}
      rowHeight={ROW_HEIGHT}
      height={height}
      render={(row) => (
        <div
          className="corral-tree-row"
          role="treeitem"
          aria-level={row.depth + 1}
          aria-expanded={row.expanded}
          style={{ paddingLeft: 8 + row.depth * 20 }}
        >
          {row.expanded !== undefined ? (
            <button
              type="button"
              className="corral-tree-toggle"
              aria-label={`${row.expanded ? 'Collapse' : 'Expand'} ${row.resource.node}`}
              onClick={() => toggle(row.resource.node ?? '')}
            >
              {row.expanded ? <AngleDownIcon /> : <AngleRightIcon />}
            </button>
          ) : (
            <span className="corral-tree-toggle" />
          )}
          <a
            href={href(row.route)}
            className="corral-tree-link"
            aria-current={href(row.route) === currentHref ? 'page' : undefined}
            data-id={row.resource.id}
          >
            <StatusIcon resource={row.resource} />
            <span className="corral-tree-label">{labelOf(row.resource)}</span>
          </a>
        </div>
      )}
    />
  );
}

export function labelOf(resource: Resource): string {
  if (isGuest(resource)) return resource.name ? `${resource.vmid} (${resource.name})` : String(resource.vmid);
  if (resource.type === 'storage') return resource.storage ?? resource.id;
  if (resource.type === 'pool') return resource.pool ?? resource.id;
  return resource.node ?? resource.id;
}

function treeRows(resources: readonly Resource[], collapsed: ReadonlySet<string>): Row[] {
  const byNode = new Map<string, Resource[]>();
  for (const resource of resources) {
    if (resource.type === 'node' || !resource.node) continue;
    const list = byNode.get(resource.node) ?? [];
    list.push(resource);
    byNode.set(resource.node, list);
  }
  const rows: Row[] = [];
  const listed = resources.filter((r) => r.type === 'node');
  // A caller who may audit a guest and not its node still sees the guest, under its node's name.
  const unlisted = [...byNode.keys()].filter((name) => !listed.some((n) => n.node === name));
  const nodes = [...listed, ...unlisted.map((name): Resource => ({ id: `node/${name}`, type: 'node', node: name }))].sort((a, b) =>
    (a.node ?? '').localeCompare(b.node ?? ''),
  );
  for (const node of nodes) {
    const name = node.node ?? '';
    const expanded = !collapsed.has(name);
    rows.push({ resource: node, depth: 0, route: { view: 'node', node: name }, expanded });
    if (!expanded) continue;
    const children = byNode.get(name) ?? [];
    const guests = children.filter(isGuest).sort((a, b) => (a.vmid ?? 0) - (b.vmid ?? 0));
    for (const guest of guests) rows.push({ resource: guest, depth: 1, route: { view: 'guest', vmid: guest.vmid ?? 0 } });
    for (const storage of children.filter((r) => r.type === 'storage').sort((a, b) => (a.storage ?? '').localeCompare(b.storage ?? ''))) {
      rows.push({ resource: storage, depth: 1, route: { view: 'storage', node: name, storage: storage.storage ?? '' } });
    }
  }
  for (const pool of resources.filter((r) => r.type === 'pool'))
    rows.push({ resource: pool, depth: 0, route: { view: 'pool', pool: pool.pool ?? '' } });
  return rows;
}
