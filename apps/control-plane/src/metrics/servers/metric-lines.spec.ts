import { graphiteLines } from './graphite-lines.js';
import { influxLines } from './influx-lines.js';
import type { MetricObject } from './metric-objects.js';

const GUEST: MetricObject = {
  kind: 'lxc',
  node: 'pve1',
  vmid: 101,
  name: 'db one',
  data: {
    vmid: 101,
    name: 'db one',
    status: 'running',
    tags: '123',
    lock: 'say "hi"',
    cpu: 1e-7,
    mem: 10,
    pid: 7,
    template: 1,
    'with.dot': 2,
    ha: { managed: 0 },
    nics: { eth0: { netin: 1, netout: 2 } },
    gone: undefined,
    nan: NaN,
  },
};

describe('the metric lines', () => {
  it("are InfluxDB's line protocol as PVE writes it: text quoted and escaped, groups in measurements, members as instances", () => {
    expect(influxLines(GUEST, 1_700_000_000.7)).toEqual([
      'ha,object=lxc,vmid=101,nodename=pve1,host=db\\ one managed=0 1700000000000000000\n',
      'nics,object=lxc,vmid=101,nodename=pve1,host=db\\ one,instance=eth0 netin=1,netout=2 1700000000000000000\n',
      'system,object=lxc,vmid=101,nodename=pve1,host=db\\ one cpu=1e-7,lock="say \\"hi\\"",mem=10,name="db one",pid=7,status="running",tags="123",template=1,with.dot=2 1700000000000000000\n',
    ]);
  });

  it("are Graphite's paths as PVE writes them: numbers only, dots in keys as dashes, plain decimals", () => {
    expect(graphiteLines(GUEST, 1_700_000_000.7, 'root')).toEqual([
      'root.lxc.101.cpu 0.0000001 1700000000\n',
      'root.lxc.101.ha.managed 0 1700000000\n',
      'root.lxc.101.mem 10 1700000000\n',
      'root.lxc.101.nics.eth0.netin 1 1700000000\n',
      'root.lxc.101.nics.eth0.netout 2 1700000000\n',
      'root.lxc.101.vmid 101 1700000000\n',
      'root.lxc.101.with-dot 2 1700000000\n',
    ]);
  });

  it('name a node and a storage as PVE does', () => {
    const node: MetricObject = { kind: 'node', node: 'pve1', data: { uptime: 5, cpustat: { cpu: 0.5 } }, traffic: {} };
    const storage: MetricObject = { kind: 'storage', node: 'pve1', storage: 'local', type: 'dir', data: { total: 9 } };
    expect(influxLines(node, 1)).toEqual([
      'cpustat,object=nodes,host=pve1 cpu=0.5 1000000000\n',
      'system,object=nodes,host=pve1 uptime=5 1000000000\n',
    ]);
    expect(influxLines(storage, 1)).toEqual(['system,object=storages,nodename=pve1,host=local,type=dir total=9 1000000000\n']);
    expect(graphiteLines(node, 1, 'proxmox')).toEqual(['proxmox.nodes.pve1.cpustat.cpu 0.5 1\n', 'proxmox.nodes.pve1.uptime 5 1\n']);
    expect(graphiteLines(storage, 1, 'proxmox')).toEqual(['proxmox.storages.pve1.local.total 9 1\n']);
  });
});
