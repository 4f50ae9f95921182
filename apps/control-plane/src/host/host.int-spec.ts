import type { RequestFrame } from '@corral/protocol';
import { waitFor, type FakeAgent, type FakeAnswer } from '@corral/testing';
import { call, dataOf, expectError } from '../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { HostModule } from './host.module.js';

const INTERFACES = [
  { iface: 'eno1', type: 'eth', active: true, exists: true, autostart: true, method: 'manual' },
  {
    iface: 'vmbr0',
    type: 'bridge',
    active: true,
    exists: true,
    autostart: true,
    method: 'static',
    cidr: '192.0.2.10/24',
    gateway: '192.0.2.1',
    bridgePorts: ['eno1'],
    bridgeVlanAware: true,
    bridgeVids: ['2-4094'],
  },
  {
    iface: 'bond0',
    type: 'bond',
    active: false,
    exists: false,
    autostart: true,
    method: 'manual',
    slaves: ['eno2', 'eno3'],
    bondMode: 'active-backup',
    bondPrimary: 'eno2',
  },
];

describe('the host endpoints of a node, through its agent', () => {
  let t: TestApp;
  let agent: FakeAgent;
  const asked: RequestFrame[] = [];
  let answer: (request: RequestFrame) => FakeAnswer = () => ({ result: null });

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, HostModule] });
    const credential = await joinNode(t, 'pve1');
    agent = await onlineAgent(t, 'pve1', credential, {
      answer: (request) => {
        asked.push(request);
        return answer(request);
      },
    });
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });
  beforeEach(() => {
    asked.length = 0;
  });

  const last = () => asked.at(-1);

  it("DNS: reads PVE's search and dns1..3, writes them as the agent's lists, and refuses a bad server naming dns2", async () => {
    answer = () => ({ result: { search: ['example.com', 'lab.example.com'], servers: ['192.0.2.53', '2001:db8::53'] } });
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/dns'))).toEqual({
      search: 'example.com lab.example.com',
      dns1: '192.0.2.53',
      dns2: '2001:db8::53',
    });
    answer = () => ({ result: null });
    expect(
      dataOf(await call(t, 'PUT', '/nodes/pve1/dns', { form: { search: 'a.example b.example', dns1: '192.0.2.1', dns3: '192.0.2.3' } })),
    ).toBeNull();
    expect(last()).toEqual(
      expect.objectContaining({
        command: 'node.dns.set',
        params: { search: ['a.example', 'b.example'], servers: ['192.0.2.1', '192.0.2.3'] },
      }),
    );
    asked.length = 0;
    expectError(
      await call(t, 'PUT', '/nodes/pve1/dns', { form: { search: 'a.example', dns1: '192.0.2.1', dns2: 'not an address' } }),
      400,
      'IPv4 or IPv6',
      'dns2',
    );
    expectError(await call(t, 'PUT', '/nodes/pve1/dns', { form: { search: 'bad_domain!' } }), 400, '', 'search');
    expect(asked).toEqual([]);
  });

  it("apt: PVE's capitalised package list, the changelog, and an update that runs as a task whose log and end are recorded", async () => {
    answer = (request) =>
      request.command === 'node.apt.upgradable'
        ? {
            result: [
              {
                package: 'curl',
                title: 'command line tool for transferring data',
                version: '7.88.1-10+deb12u9',
                oldVersion: '7.88.1-10+deb12u8',
                arch: 'amd64',
                origin: 'Debian',
              },
            ],
          }
        : { result: 'curl (7.88.1-10+deb12u9) bookworm-security; urgency=medium' };
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/apt/update'))).toEqual([
      {
        Package: 'curl',
        Title: 'command line tool for transferring data',
        Version: '7.88.1-10+deb12u9',
        OldVersion: '7.88.1-10+deb12u8',
        Arch: 'amd64',
        Origin: 'Debian',
      },
    ]);
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/apt/changelog', { query: 'name=curl' }))).toContain('bookworm-security');
    expect(last()?.params).toEqual({ name: 'curl' });
    expectError(await call(t, 'GET', '/nodes/pve1/apt/changelog', { query: 'name=Not%20A%20Package' }), 400, 'Debian package name', 'name');
    const apt = answer;
    answer = () => ({ failure: 'not-found', message: "package 'nosuch' does not exist in apt's index" });
    expectError(await call(t, 'GET', '/nodes/pve1/apt/changelog', { query: 'name=nosuch' }), 404, "package 'nosuch' does not exist");
    answer = apt;

    answer = (request) => {
      agent.send({
        type: 'log',
        id: request.id,
        lines: [
          { n: 1, text: 'Hit:1 http://deb.debian.org/debian bookworm InRelease' },
          { n: 2, text: 'Reading package lists...' },
        ],
      });
      return { result: null };
    };
    const upid = dataOf<string>(await call(t, 'POST', '/nodes/pve1/apt/update'));
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:aptupdate::root@pam:$/);
    // Sent once the task's request is recorded, just after the UPID is answered.
    await waitFor(() => last()?.command === 'node.apt.update', { timeoutMs: 5000, what: 'the update sent to the agent' });
    expect(last()).toEqual(expect.objectContaining({ command: 'node.apt.update', upid }));
    await waitFor(async () => dataOf<{ status: string }>(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/status`)).status === 'stopped', {
      timeoutMs: 5000,
      what: 'the task to end',
    });
    expect(dataOf(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/status`))).toEqual(
      expect.objectContaining({ upid, node: 'pve1', type: 'aptupdate', user: 'root@pam', status: 'stopped', exitstatus: 'OK' }),
    );
    expect(dataOf(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/log`))).toEqual([
      { n: 1, t: 'Hit:1 http://deb.debian.org/debian bookworm InRelease' },
      { n: 2, t: 'Reading package lists...' },
      { n: 3, t: 'TASK OK' },
    ]);
    expect(dataOf<{ upid: string }[]>(await call(t, 'GET', '/nodes/pve1/tasks')).map((task) => task.upid)).toContain(upid);
  });

  it('a task whose command fails ends with the error text', async () => {
    answer = () => ({ failure: 'failed', message: "disk '/dev/sdb' has partitions: refusing to initialise it" });
    const upid = dataOf<string>(await call(t, 'POST', '/nodes/pve1/disks/initgpt', { form: { disk: '/dev/sdb' } }));
    expect(upid).toContain(':diskinit:sdb:root@pam:');
    await waitFor(async () => dataOf<{ status: string }>(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/status`)).status === 'stopped', {
      timeoutMs: 5000,
      what: 'the task to end',
    });
    expect(dataOf(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/status`))).toEqual(
      expect.objectContaining({ exitstatus: "disk '/dev/sdb' has partitions: refusing to initialise it" }),
    );
    expect(dataOf<{ t: string }[]>(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/log`)).at(-1)?.t).toBe(
      "TASK ERROR: disk '/dev/sdb' has partitions: refusing to initialise it",
    );
    expectError(await call(t, 'POST', '/nodes/pve1/disk', { form: { disk: '/etc/passwd' } }), 400, '', 'disk');
  });

  it("disks: PVE's 0/1 flags on both paths", async () => {
    answer = () => ({ result: [{ devpath: '/dev/sdb', size: 1e10, type: 'ssd', model: 'Disk', gpt: true, mounted: false }] });
    const expected = [{ devpath: '/dev/sdb', size: 1e10, type: 'ssd', model: 'Disk', gpt: 1, mounted: 0, osdid: -1, 'osdid-list': [] }];
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/disks/list'))).toEqual(expected);
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/disk'))).toEqual(expected);
  });

  it("network: lists with PVE's names, creates with them, and refuses bad fields naming PVE's parameter", async () => {
    answer = (request) => (request.command === 'node.network.list' ? { result: { interfaces: INTERFACES } } : { result: null });
    const list = dataOf<Record<string, unknown>[]>(await call(t, 'GET', '/nodes/pve1/network'));
    expect(list).toContainEqual({
      iface: 'vmbr0',
      type: 'bridge',
      active: 1,
      exists: 1,
      autostart: 1,
      method: 'static',
      cidr: '192.0.2.10/24',
      address: '192.0.2.10',
      netmask: '255.255.255.0',
      gateway: '192.0.2.1',
      bridge_ports: 'eno1',
      bridge_vlan_aware: 1,
      bridge_vids: '2-4094',
    });
    expect(list).toContainEqual(
      expect.objectContaining({ iface: 'bond0', slaves: 'eno2 eno3', bond_mode: 'active-backup', 'bond-primary': 'eno2', exists: 0 }),
    );
    expect(
      dataOf<{ iface: string }[]>(await call(t, 'GET', '/nodes/pve1/network', { query: 'type=any_bridge' })).map((i) => i.iface),
    ).toEqual(['vmbr0']);
    expect(dataOf<{ iface: string }>(await call(t, 'GET', '/nodes/pve1/network/eno1')).iface).toBe('eno1');
    expectError(await call(t, 'GET', '/nodes/pve1/network/eno9'), 404, 'does not exist');

    expect(
      dataOf(
        await call(t, 'POST', '/nodes/pve1/network', {
          form: { iface: 'vmbr1', type: 'bridge', bridge_ports: 'eno2 eno3', autostart: 1, cidr: '198.51.100.2/24' },
        }),
      ),
    ).toBeNull();
    expect(last()).toEqual(
      expect.objectContaining({
        command: 'node.network.create',
        params: { iface: 'vmbr1', type: 'bridge', bridgePorts: ['eno2', 'eno3'], autostart: true, cidr: '198.51.100.2/24' },
      }),
    );
    asked.length = 0;
    expectError(
      await call(t, 'POST', '/nodes/pve1/network', { form: { iface: 'vmbr2', type: 'bridge', gateway: '198.51.100.1' } }),
      400,
      'needs an address',
      'gateway',
    );
    expectError(
      await call(t, 'POST', '/nodes/pve1/network', {
        form: { iface: 'bond1', type: 'bond', slaves: 'eno2', bond_mode: 'balance-rr', 'bond-primary': 'eno2' },
      }),
      400,
      'active-backup',
      'bond-primary',
    );
    expectError(await call(t, 'POST', '/nodes/pve1/network', { form: { iface: 'x y', type: 'bridge' } }), 400, '', 'iface');
    expectError(await call(t, 'POST', '/nodes/pve1/network', { form: { iface: 'ovs0', type: 'OVSBridge' } }), 400, '', 'type');
    expect(asked).toEqual([]);

    expect(dataOf(await call(t, 'DELETE', '/nodes/pve1/network/bond0'))).toBeNull();
    expect(last()).toEqual(expect.objectContaining({ command: 'node.network.delete', params: { iface: 'bond0' } }));
    asked.length = 0;
    expectError(await call(t, 'DELETE', '/nodes/pve1/network/vmbr9'), 404, "interface 'vmbr9' on node 'pve1' does not exist");
    expect(asked.map((request) => request.command)).toEqual(['node.network.list']);
    // Listed, but gone from the host's file by the time the agent removes it: a 404 as well.
    answer = (request) =>
      request.command === 'node.network.list'
        ? { result: { interfaces: INTERFACES } }
        : { failure: 'not-found', message: "interface 'bond0' does not exist in /etc/network/interfaces" };
    expectError(await call(t, 'DELETE', '/nodes/pve1/network/bond0'), 404, "interface 'bond0' does not exist");
    answer = (request) => (request.command === 'node.network.list' ? { result: { interfaces: INTERFACES } } : { result: null });
    const upid = dataOf<string>(await call(t, 'PUT', '/nodes/pve1/network'));
    expect(upid).toContain(':srvreload:networking:root@pam:');
  });

  it('scan: what local storage the host can offer', async () => {
    answer = () => ({
      result: {
        lvm: [{ vg: 'pve', size: 1e11, free: 1e10 }],
        zfs: [],
        directories: [{ path: '/', device: '/dev/sda1', fsType: 'ext4', size: 1e11, free: 5e10 }],
      },
    });
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/scan'))).toEqual({
      lvm: [{ vg: 'pve', size: 1e11, free: 1e10 }],
      zfs: [],
      dir: [{ path: '/', device: '/dev/sda1', type: 'ext4', size: 1e11, free: 5e10 }],
    });
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/scan/lvm'))).toEqual([{ vg: 'pve', size: 1e11, free: 1e10 }]);
  });

  it('answers 404 for a node that never joined and 503 naming an offline node, before any task starts', async () => {
    expectError(await call(t, 'GET', '/nodes/ghost/dns'), 404, "node 'ghost' does not exist");
    await joinNode(t, 'pve2');
    expectError(await call(t, 'POST', '/nodes/pve2/apt/update'), 503, "node 'pve2' is offline");
    expect(dataOf<unknown[]>(await call(t, 'GET', '/nodes/pve2/tasks'))).toEqual([]);
  });
});
