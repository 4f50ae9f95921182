import type { GuestRow } from '../inventory/guests/guest.entity.js';
import type { GuestState, GuestView } from '../inventory/guests/guest-view.js';
import type { NodeState, NodeView } from '../inventory/nodes/node-view.js';
import { ClusterMetrics } from './cluster-metrics.js';

const INVENTORY = { cpu: 0.5, maxcpu: 4, mem: 1, maxmem: 2, uptime: 60, disk: 3, maxdisk: 4, os: 'Linux', kernel: '6' };
const node = (name: string, online: boolean): NodeState =>
  ({ name, online, replica: null, address: null, agentVersion: null, capabilities: [], inventory: INVENTORY }) as NodeState;
const guest = (vmid: number, name: string): GuestState => ({
  row: { vmid, type: 'lxc', node: 'pve1', config: { hostname: name, memory: '256' }, lock: null, status: 'stopped' } as unknown as GuestRow,
  runtime: undefined,
});

function metricsOf(nodes: NodeState[], guests: GuestState[]): ClusterMetrics {
  return new ClusterMetrics({ list: () => nodes } as unknown as NodeView, { list: () => guests } as unknown as GuestView);
}

describe("the cluster's figures as metrics", () => {
  it('shows each family once, with a figure per online node and per guest, and only the up state of an offline node', () => {
    const lines = metricsOf([node('pve1', true), node('pve2', false)], [guest(100, 'web'), guest(101, 'db')])
      .text()
      .split('\n');
    expect(lines.filter((line) => line === '# TYPE corral_node_cpu_ratio gauge')).toHaveLength(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        'corral_node_up{node="pve1"} 1',
        'corral_node_up{node="pve2"} 0',
        'corral_node_cpu_ratio{node="pve1"} 0.5',
        'corral_guest_memory_total_bytes{node="pve1",vmid="100",type="lxc",name="web"} 268435456',
        'corral_guest_up{node="pve1",vmid="101",type="lxc",name="db"} 0',
      ]),
    );
    expect(lines.some((line) => line.startsWith('corral_node_cpus{node="pve2"}'))).toBe(false);
  });

  it('escapes a backslash, a double quote and a line feed in a label', () => {
    const text = metricsOf([node('pve1', true)], [guest(100, 'a"b\\c\nd')]).text();
    expect(text).toContain('corral_guest_up{node="pve1",vmid="100",type="lxc",name="a\\"b\\\\c\\nd"} 0\n');
  });
});
