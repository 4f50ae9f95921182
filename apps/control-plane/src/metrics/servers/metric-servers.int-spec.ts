import { waitFor, type FakeAgent } from '@corral/testing';
import { addUser, basic, call, dataOf, expectError, grant } from '../../../test-support/access-fixture.js';
import { closedPort, DatagramReceiver, InfluxHttpReceiver, StreamReceiver } from '../../../test-support/metric-receivers.js';
import { addWebVm, INVENTORY, joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import { MetricPush } from './metric-push.js';
import { MetricServersModule } from './metric-servers.module.js';

const MIB = 1024 ** 2;
const AUDITOR = basic('auditor@pve', 'auditor-secret-1');
const NOBODY = basic('nobody@pve', 'nobody-secret-1');

type Entry = Record<string, unknown>;

describe('external metric servers', () => {
  let t: TestApp;
  let agent: FakeAgent;
  let push: MetricPush;
  let influx: InfluxHttpReceiver;
  let influxUdp: DatagramReceiver;
  let graphite: StreamReceiver;
  let graphiteUdp: DatagramReceiver;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, MetricServersModule] });
    push = t.app.get(MetricPush);
    // The app's own reading every 10 s is stopped: the tests read at the times they choose.
    await push.onModuleDestroy();
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), {
      answer: (request) => ({ result: request.command === 'storage.activate' ? { active: true } : null }),
    });
    await addWebVm(t);
    await addUser(t, 'auditor@pve', { password: 'auditor-secret-1' });
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
    await addUser(t, 'nobody@pve', { password: 'nobody-secret-1' });
    [influx, influxUdp, graphite, graphiteUdp] = await Promise.all([
      InfluxHttpReceiver.start(),
      DatagramReceiver.start(),
      StreamReceiver.start(),
      DatagramReceiver.start(),
    ]);
    agent.send({
      type: 'report',
      payload: {
        ...INVENTORY,
        netin: 5e9,
        netout: 6e9,
        loadavg: 0.5,
        iowait: 0.01,
        storages: [{ storage: 'local', active: true, total: 1e11, used: 4e10, avail: 6e10 }],
      },
    });
    agent.send({
      type: 'report',
      payload: {
        kind: 'runtime',
        guests: [
          { vmid: 100, type: 'qemu', status: 'running', pid: 4242, uptime: 120, cpu: 0.5, mem: 256 * MIB, netin: 1000, diskwrite: 2000 },
        ],
      },
    });
    await waitFor(
      () => t.app.get(GuestView).get(100)?.runtime?.uptime === 120 && t.app.get(NodeView).get('pve1')?.inventory?.netin === 5e9,
      {
        timeoutMs: 5000,
        what: 'the reports',
      },
    );
  });
  afterAll(async () => {
    agent.close();
    await t.close();
    await Promise.all([influx.close(), influxUdp.close(), graphite.close(), graphiteUdp.close()]);
  });

  const create = (id: string, form: Record<string, string | number>) => call(t, 'POST', `/cluster/metrics/server/${id}`, { form });
  const remove = async (id: string) => dataOf(await call(t, 'DELETE', `/cluster/metrics/server/${id}`));

  it('sends the node, guest and storage figures to InfluxDB over HTTP with the token, in PVE measurements and tags', async () => {
    dataOf(
      await create('influx', {
        type: 'influxdb',
        server: '127.0.0.1',
        port: influx.port,
        influxdbproto: 'http',
        token: 'secret-token',
        organization: 'lab',
        bucket: 'pve',
        'api-path-prefix': '/influx/',
      }),
    );
    const now = 1_800_000_000;
    await push.tick(now);
    const write = influx.writes.find((each) => each.body.includes(` ${now}000000000`));
    expect(write).toMatchObject({ path: '/influx/api/v2/write', authorization: 'Token secret-token' });
    expect(Object.fromEntries(write?.query ?? [])).toEqual({ org: 'lab', bucket: 'pve' });
    const lines = influx.lines().filter((line) => line.endsWith(` ${now}000000000`));
    const stamp = `${now}000000000`;
    expect(lines).toEqual(
      expect.arrayContaining([
        `system,object=nodes,host=pve1 uptime=3600 ${stamp}`,
        `cpustat,object=nodes,host=pve1 avg1=0.5,cpu=0.25,cpus=8,wait=0.01 ${stamp}`,
        `memory,object=nodes,host=pve1 memfree=6000000000,memtotal=8000000000,memused=2000000000 ${stamp}`,
        `blockstat,object=nodes,host=pve1 bfree=60000000000,blocks=100000000000,used=40000000000 ${stamp}`,
        `system,object=storages,nodename=pve1,host=local,type=dir active=1,avail=60000000000,content="images,rootdir,vztmpl,iso,backup,snippets",enabled=1,shared=0,total=100000000000,type="dir",used=40000000000 ${stamp}`,
      ]),
    );
    const vm = lines.find((line) => line.startsWith('system,object=qemu,'));
    expect(vm).toMatch(/^system,object=qemu,vmid=100,nodename=pve1,host=web /);
    expect(vm).toContain('cpu=0.5,cpus=2,');
    expect(vm).toContain('name="web"');
    expect(vm).toContain('netin=1000');
    expect(vm).toContain('status="running"');
    expect(vm?.split(' ')[1]).not.toMatch(/(^|,)vmid=/);

    // The token is write-only.
    const entry = dataOf<Entry>(await call(t, 'GET', '/cluster/metrics/server/influx'));
    expect(entry).toMatchObject({
      id: 'influx',
      type: 'influxdb',
      server: '127.0.0.1',
      port: influx.port,
      influxdbproto: 'http',
      bucket: 'pve',
    });
    expect(entry).not.toHaveProperty('token');
    expect(entry).not.toHaveProperty('error');
    await remove('influx');
  });

  it('sends InfluxDB lines over UDP in datagrams of the MTU', async () => {
    dataOf(await create('influx-udp', { type: 'influxdb', server: '127.0.0.1', port: influxUdp.port, mtu: 512 }));
    await push.tick(1_800_000_010);
    await waitFor(() => influxUdp.lines().some((line) => line.startsWith('system,object=qemu,vmid=100,')), {
      timeoutMs: 5000,
      what: 'the datagrams',
    });
    // A datagram holds lines up to the MTU less 50 bytes, or a single longer line.
    expect(influxUdp.datagrams.length).toBeGreaterThan(1);
    expect(influxUdp.datagrams.filter((datagram) => Buffer.byteLength(datagram) > 462 && datagram.split('\n').length > 2)).toEqual([]);
    await remove('influx-udp');
  });

  it('sends Graphite paths under its root over TCP and UDP', async () => {
    dataOf(await create('graphite', { type: 'graphite', server: '127.0.0.1', port: graphite.port, proto: 'tcp', path: 'corral.lab' }));
    dataOf(await create('graphite-udp', { type: 'graphite', server: 'localhost', port: graphiteUdp.port }));
    const now = 1_800_000_020;
    await push.tick(now);
    await waitFor(() => graphite.lines().length > 0 && graphiteUdp.lines().length > 0, { timeoutMs: 5000, what: 'the lines' });
    expect(graphite.lines()).toEqual(
      expect.arrayContaining([
        `corral.lab.nodes.pve1.uptime 3600 ${now}`,
        `corral.lab.nodes.pve1.cpustat.cpu 0.25 ${now}`,
        `corral.lab.nodes.pve1.memory.memused 2000000000 ${now}`,
        `corral.lab.qemu.100.cpu 0.5 ${now}`,
        `corral.lab.qemu.100.netin 1000 ${now}`,
        `corral.lab.storages.pve1.local.total 100000000000 ${now}`,
      ]),
    );
    // Text, pid and template are not sent.
    expect(graphite.lines().filter((line) => /\.(pid|name|status) /.test(line))).toEqual([]);
    expect(graphiteUdp.lines()).toContain(`proxmox.qemu.100.mem ${256 * MIB} ${now}`);
    await remove('graphite');
    await remove('graphite-udp');
  });

  it('keeps what a failing server did not take and sends it once the server takes it again, showing the failure meanwhile', async () => {
    dataOf(await create('flaky', { type: 'influxdb', server: '127.0.0.1', port: influx.port, influxdbproto: 'http' }));
    influx.answers.push(503);
    await push.tick(1_800_000_030);
    const failing = dataOf<Entry>(await call(t, 'GET', '/cluster/metrics/server/flaky'));
    expect(failing['error']).toMatch(/answered 503/);
    expect(failing['failing-since']).toEqual(expect.any(Number));
    expect(dataOf<Entry[]>(await call(t, 'GET', '/cluster/metrics/server'))).toEqual([
      expect.objectContaining({ id: 'flaky', disable: 0, error: expect.stringMatching(/answered 503/) }),
    ]);

    await push.tick(1_800_000_040);
    const stamps = influx.lines().map((line) => line.split(' ').at(-1));
    expect(stamps).toContain('1800000030000000000');
    expect(stamps).toContain('1800000040000000000');
    expect(dataOf<Entry>(await call(t, 'GET', '/cluster/metrics/server/flaky'))).not.toHaveProperty('error');
    await remove('flaky');
  });

  it('cuts off a server that hangs at its timeout, while the API goes on answering', async () => {
    dataOf(await create('hanging', { type: 'influxdb', server: '127.0.0.1', port: influx.port, influxdbproto: 'http', timeout: 1 }));
    influx.answers.push('hang');
    let settled = false;
    const tick = push.tick(1_800_000_050).then(() => (settled = true));
    await waitFor(() => influx.answers.length === 0, { timeoutMs: 5000, what: 'the write to hang' });
    // The list is answered while the write still hangs.
    dataOf(await call(t, 'GET', '/cluster/resources'));
    expect(settled).toBe(false);
    await tick;
    expect(dataOf<Entry>(await call(t, 'GET', '/cluster/metrics/server/hanging'))['error']).toMatch(/no answer from .* within 1 s/);
    await remove('hanging');
  });

  it('refuses what cannot work, naming the parameter, and leaves nothing behind', async () => {
    expectError(
      await create('dead', { type: 'influxdb', server: '127.0.0.1', port: await closedPort(), influxdbproto: 'http' }),
      400,
      "metric server 'dead' does not work: cannot reach",
      'server',
    );
    expectError(
      await create('dead', { type: 'graphite', server: '127.0.0.1', port: await closedPort(), proto: 'tcp' }),
      400,
      'cannot reach',
      'server',
    );
    expectError(
      await create('dead', { type: 'graphite', server: 'no-such-host.invalid', port: 2003 }),
      400,
      "cannot resolve 'no-such-host.invalid'",
      'server',
    );
    expectError(
      await create('dead', { type: 'influxdb', server: '127.0.0.1', port: 8086, token: 'two words' }),
      400,
      'printable ASCII',
      'token',
    );
    expectError(
      await create('dead', { type: 'graphite', server: '127.0.0.1', port: 2003, bucket: 'b' }),
      400,
      "no setting 'bucket'",
      'bucket',
    );
    expectError(
      await create('dead', { type: 'influxdb', server: 'not an address', port: 8086 }),
      400,
      'IP address or a DNS name',
      'server',
    );
    expectError(
      await create('dead', { type: 'influxdb', server: '127.0.0.1', port: 8086, influxdbproto: 'tcp' }),
      400,
      'is not one of',
      'influxdbproto',
    );
    expectError(await create('dead', { type: 'opentelemetry', server: '127.0.0.1', port: 4318 }), 501, 'not built');
    expect(dataOf<Entry[]>(await call(t, 'GET', '/cluster/metrics/server'))).toEqual([]);
    expectError(await call(t, 'GET', '/cluster/metrics/server/dead'), 404, "metric server 'dead' does not exist");
    expectError(await call(t, 'DELETE', '/cluster/metrics/server/dead'), 404, 'does not exist');
  });

  it('changes a server with delete and digest, and keeps a disabled one without trying it', async () => {
    dataOf(await create('off', { type: 'graphite', server: '127.0.0.1', port: await closedPort(), proto: 'tcp', disable: 1, timeout: 3 }));
    expectError(await create('off', { type: 'graphite', server: '127.0.0.1', port: 2003, disable: 1 }), 409, 'already exists');
    const { digest } = dataOf<{ digest: string }>(await call(t, 'GET', '/cluster/metrics/server/off'));
    dataOf(await call(t, 'PUT', '/cluster/metrics/server/off', { form: { port: graphite.port, delete: 'timeout', digest } }));
    expectError(
      await call(t, 'PUT', '/cluster/metrics/server/off', { form: { mtu: 1400, digest } }),
      409,
      'detected modified configuration',
    );
    // Enabling it tries it: it works now.
    dataOf(await call(t, 'PUT', '/cluster/metrics/server/off', { form: { delete: 'disable' } }));
    expect(dataOf<Entry>(await call(t, 'GET', '/cluster/metrics/server/off'))).toEqual({
      id: 'off',
      type: 'graphite',
      server: '127.0.0.1',
      port: graphite.port,
      proto: 'tcp',
      digest: expect.any(String),
    });
    expectError(
      await call(t, 'PUT', '/cluster/metrics/server/off', { form: { mtu: 1400, delete: 'mtu' } }),
      400,
      "cannot set and delete 'mtu'",
      'delete',
    );
    expectError(
      await call(t, 'PUT', '/cluster/metrics/server/off', { form: { delete: 'bucket' } }),
      400,
      "graphite metric servers have no setting 'bucket'",
      'delete',
    );
    await remove('off');
  });

  it('is read with Sys.Audit and changed with Sys.Modify on /', async () => {
    expect(dataOf<Entry[]>(await call(t, 'GET', '/cluster/metrics/server', { as: AUDITOR }))).toEqual([]);
    expect(dataOf<Entry[]>(await call(t, 'GET', '/cluster/metrics', { as: NOBODY }))).toEqual([{ name: 'server' }, { name: 'export' }]);
    expectError(await call(t, 'GET', '/cluster/metrics/server', { as: NOBODY }), 403, 'permission denied');
    expectError(
      await call(t, 'POST', '/cluster/metrics/server/x1', { as: AUDITOR, form: { type: 'graphite', server: '127.0.0.1', port: 2003 } }),
      403,
      'permission denied',
    );
  });

  it('exports the newest figures as PVE 9 does, and keeps the readings while the export is in use', async () => {
    type Metric = { id: string; metric: string; timestamp: number; type: string; value: number };
    const exported = async (query = '') => dataOf<{ data: Metric[] }>(await call(t, 'GET', '/cluster/metrics/export', { query })).data;
    // Until the export is asked for, no reading is kept for it.
    expect(push.generations.newest()).toBeUndefined();
    const first = await exported();
    const asked = first[0]?.timestamp ?? 0;
    expect(asked).toBeGreaterThan(Date.now() / 1000 - 60);
    await push.tick(asked + 10);
    await push.tick(asked + 20);

    const { data } = dataOf<{ data: Metric[] }>(await call(t, 'GET', '/cluster/metrics/export', { as: AUDITOR }));
    const at = asked + 20;
    expect(new Set(data.map((metric) => metric.timestamp))).toEqual(new Set([at]));
    expect(data).toEqual(
      expect.arrayContaining([
        { id: 'node/pve1', metric: 'cpu_current', timestamp: at, type: 'gauge', value: 0.25 },
        { id: 'node/pve1', metric: 'net_in', timestamp: at, type: 'derive', value: 5e9 },
        { id: 'qemu/100', metric: 'net_in', timestamp: at, type: 'derive', value: 1000 },
        { id: 'qemu/100', metric: 'mem_total', timestamp: at, type: 'gauge', value: 512 * MIB },
        { id: 'storage/pve1/local', metric: 'disk_used', timestamp: at, type: 'gauge', value: 4e10 },
      ]),
    );
    const since = await exported(`history=1&start-time=${asked + 10}`);
    expect(new Set(since.map((metric) => metric.timestamp))).toEqual(new Set([at]));
    expect(new Set((await exported('history=1')).map((metric) => metric.timestamp))).toEqual(new Set([asked, asked + 10, at]));
    expect(await exported('node-list=pve2')).toEqual([]);
    expect((await exported('local-only=1')).length).toBe(data.length);
    expectError(await call(t, 'GET', '/cluster/metrics/export', { as: NOBODY }), 403, 'permission denied');
  });
});
