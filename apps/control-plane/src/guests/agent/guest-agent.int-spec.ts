import type { RequestFrame } from '@corral/protocol';
import { waitFor, type FakeAgent, type FakeAnswer } from '@corral/testing';
import { addUser, basic, call, dataOf, expectError, grant } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestsModule } from '../guests.module.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { GuestView } from '../../inventory/guests/guest-view.js';

/*
 * The guest agent endpoints and `pending` on real PostgreSQL, with a fake agent on node pve1 that
 * answers `guest.agent` as a guest agent would: VMs 100 (agent: 1) and 102 (no agent) run, VM 101
 * (agent enabled) runs without a guest agent in it, VM 103 (agent: 1) is stopped.
 */

const INTERFACES = [
  {
    name: 'eth0',
    'hardware-address': 'bc:24:11:0a:1b:2c',
    'ip-addresses': [{ 'ip-address-type': 'ipv4', 'ip-address': '192.0.2.10', prefix: 24 }],
  },
];

function answers(asked: RequestFrame[]) {
  return (request: RequestFrame): FakeAnswer => {
    asked.push(request);
    const { vmid, command } = request.params as { vmid: number; command: string };
    if (request.command !== 'guest.agent') return { result: null };
    if (vmid === 101) return { failure: 'unavailable', message: 'QEMU guest agent is not running' };
    if (command === 'guest-network-get-interfaces') return { result: INTERFACES };
    if (command === 'guest-exec') return { result: { pid: 77 } };
    if (command === 'guest-exec-status')
      return { result: { exited: true, exitcode: 0, 'out-data': Buffer.from('hello\n').toString('base64'), 'out-truncated': false } };
    if (command === 'guest-get-osinfo') return { result: { id: 'debian', 'pretty-name': 'Debian GNU/Linux 12 (bookworm)' } };
    return { result: {} };
  };
}

describe('the QEMU guest agent and pending (/nodes/{node}/qemu/{vmid}/agent, .../pending)', () => {
  let t: TestApp;
  let agent: FakeAgent | undefined;
  const asked: RequestFrame[] = [];
  const running = (vmid: number) => ({
    vmid,
    type: 'qemu' as const,
    status: 'running' as const,
    pid: 4000 + vmid,
    uptime: 5,
    cpu: 0.01,
    mem: 1024,
  });

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule] });
    const credential = await joinNode(t, 'pve1');
    agent = await onlineAgent(t, 'pve1', credential, { answer: answers(asked) });
    const guests = t.app.get(GuestsRepository);
    await guests.insert({
      vmid: 100,
      type: 'qemu',
      node: 'pve1',
      config: { name: 'web1', memory: '2048', cores: '2', agent: 'enabled=1,type=virtio', onboot: '1' },
      lock: null,
    });
    await guests.insert({ vmid: 101, type: 'qemu', node: 'pve1', config: { agent: '1' }, lock: null });
    await guests.insert({ vmid: 102, type: 'qemu', node: 'pve1', config: { agent: '0' }, lock: null });
    await guests.insert({ vmid: 103, type: 'qemu', node: 'pve1', config: { agent: '1' }, lock: null });
    await guests.insert({
      vmid: 200,
      type: 'lxc',
      node: 'pve1',
      config: { hostname: 'ct200', memory: '512', rootfs: 'local:200/subvol-200-disk-0.subvol,size=4G', unprivileged: '1' },
      lock: null,
    });
    for (const vmid of [100, 101, 102, 103, 200]) await t.app.get(GuestView).reload(vmid);
    agent?.send({ type: 'report', payload: { kind: 'runtime', guests: [running(100), running(101), running(102)] } });
    await waitFor(
      async () => dataOf<{ status: string }>(await call(t, 'GET', '/nodes/pve1/qemu/102/status/current')).status === 'running',
      { timeoutMs: 10_000, what: 'the VMs to run' },
    );
    await addUser(t, 'watcher@pve', { password: 'watcher-password' });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'watcher@pve', roleid: 'PVEVMUser' });
  });
  afterAll(async () => {
    agent?.close();
    await t.close();
  });
  beforeEach(() => {
    asked.length = 0;
  });

  it('reports agent: 1 in status/current when the config enables the guest agent, and nothing when it does not', async () => {
    expect(dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve1/qemu/100/status/current'))).toMatchObject({ agent: 1 });
    expect(dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve1/qemu/102/status/current'))).not.toHaveProperty('agent');
  });

  it("answers ping and the reads with QGA's value under result, asking the VM's node for exactly that command", async () => {
    expect(dataOf(await call(t, 'POST', '/nodes/pve1/qemu/100/agent/ping'))).toStrictEqual({ result: {} });
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/qemu/100/agent/network-get-interfaces'))).toStrictEqual({ result: INTERFACES });
    expect(dataOf(await call(t, 'POST', '/nodes/pve1/qemu/100/agent', { form: { command: 'get-osinfo' } }))).toStrictEqual({
      result: { id: 'debian', 'pretty-name': 'Debian GNU/Linux 12 (bookworm)' },
    });
    expect(asked.map((request) => request.params)).toStrictEqual([
      { vmid: 100, command: 'guest-ping' },
      { vmid: 100, command: 'guest-network-get-interfaces' },
      { vmid: 100, command: 'guest-get-osinfo' },
    ]);
  });

  it("answers PVE's errors: no agent configured, a stopped VM, a guest agent that is not running, an unknown VM", async () => {
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/102/agent/ping'), 409, 'No QEMU guest agent configured');
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/103/agent/ping'), 409, 'VM 103 is not running');
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/101/agent/get-fsinfo'), 500, 'QEMU guest agent is not running');
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/999/agent/ping'), 404, 'does not exist');
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/200/agent/ping'), 404, 'does not exist');
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/100/agent', { form: { command: 'file-write' } }), 400, '', 'command');
    expect(asked.map((request) => request.params)).toStrictEqual([{ vmid: 101, command: 'guest-get-fsinfo' }]);
  });

  it('runs a program through exec (its input base64-encoded for QGA) and answers exec-status as PVE: output decoded, flags 0/1', async () => {
    expect(
      dataOf(await call(t, 'POST', '/nodes/pve1/qemu/100/agent/exec', { form: { command: ['cat', '-n'], 'input-data': 'hello\n' } })),
    ).toStrictEqual({ pid: 77 });
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/qemu/100/agent/exec-status?pid=77'))).toStrictEqual({
      exited: 1,
      exitcode: 0,
      'out-data': 'hello\n',
      'out-truncated': 0,
    });
    expect(asked.map((request) => request.params)).toStrictEqual([
      {
        vmid: 100,
        command: 'guest-exec',
        arguments: { path: 'cat', arg: ['-n'], 'input-data': Buffer.from('hello\n').toString('base64'), 'capture-output': true },
      },
      { vmid: 100, command: 'guest-exec-status', arguments: { pid: 77 } },
    ]);
    expectError(
      await call(t, 'POST', '/nodes/pve1/qemu/100/agent/exec', { form: { command: '' } }),
      400,
      'give the program to run',
      'command',
    );
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/100/agent/exec-status?pid=x'), 400, 'expected an integer', 'pid');
  });

  it("checks PVE 9's privileges: VM.GuestAgent.Audit reads, only VM.GuestAgent.Unrestricted runs programs", async () => {
    const watcher = basic('watcher@pve', 'watcher-password');
    expect(dataOf(await call(t, 'POST', '/nodes/pve1/qemu/100/agent/ping', { as: watcher }))).toStrictEqual({ result: {} });
    expect(dataOf(await call(t, 'POST', '/nodes/pve1/qemu/100/agent/fsfreeze-thaw', { as: watcher }))).toStrictEqual({ result: {} });
    expect((await call(t, 'POST', '/nodes/pve1/qemu/100/agent/exec', { as: watcher, form: { command: 'id' } })).status).toBe(403);
    expect((await call(t, 'POST', '/nodes/pve1/qemu/100/agent', { as: watcher, form: { command: 'ping' } })).status).toBe(403);
  });

  it('lists the guest agent commands in the index', async () => {
    const names = dataOf<{ name: string }[]>(await call(t, 'GET', '/nodes/pve1/qemu/100/agent')).map((entry) => entry.name);
    expect(names).toEqual(expect.arrayContaining(['exec', 'exec-status', 'network-get-interfaces', 'ping', 'shutdown']));
    expect(names).toStrictEqual([...names].sort());
  });

  it('lists every config key of a VM and a container as pending does, typed as the config answers them, none pending', async () => {
    const vm = dataOf<{ key: string; value?: unknown; pending?: unknown }[]>(await call(t, 'GET', '/nodes/pve1/qemu/100/pending'));
    const config = dataOf<Record<string, unknown>>(await call(t, 'GET', '/nodes/pve1/qemu/100/config'));
    expect(Object.fromEntries(vm.map((entry) => [entry.key, entry.value]))).toStrictEqual(config);
    expect(vm).toEqual(
      expect.arrayContaining([
        { key: 'cores', value: 2 },
        { key: 'onboot', value: 1 },
        { key: 'name', value: 'web1' },
      ]),
    );
    expect(vm.some((entry) => 'pending' in entry || 'delete' in entry)).toBe(false);
    const ct = dataOf<{ key: string; value?: unknown }[]>(await call(t, 'GET', '/nodes/pve1/lxc/200/pending'));
    expect(ct).toEqual(
      expect.arrayContaining([
        { key: 'hostname', value: 'ct200' },
        { key: 'memory', value: 512 },
        { key: 'unprivileged', value: 1 },
      ]),
    );
    expectError(await call(t, 'GET', '/nodes/pve1/lxc/100/pending'), 404, 'does not exist');
  });
});
