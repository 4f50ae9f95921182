import { waitFor, type FakeAgent } from '@corral/testing';
import { addUser, basic, call, dataOf, expectError, grant } from '../../test-support/access-fixture.js';
import { addWebVm, INVENTORY, joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { TaskRunner } from '../tasks/task-runner.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { finished } from '../../test-support/task-fixture.js';
import { MetricsModule } from './metrics.module.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
const AUDITOR = basic('auditor@pve', 'auditor-secret-1');

describe('GET /metrics', () => {
  let t: TestApp;
  let agent: FakeAgent;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, MetricsModule] });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), { answer: () => ({ result: null }) });
    await joinNode(t, 'pve2');
    await addWebVm(t);
    await addUser(t, 'auditor@pve', { password: 'auditor-secret-1' });
    await addUser(t, 'nobody@pve', { password: 'nobody-secret-1' });
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  const scrape = async () => {
    const res = await call(t, 'GET', '/metrics', { as: AUDITOR });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return res.text;
  };

  it("shows the nodes' and guests' figures, the agents held and the database connections, to a caller with Sys.Audit on /", async () => {
    agent.send({ type: 'report', payload: INVENTORY });
    await waitFor(async () => (await scrape()).includes('corral_node_cpu_ratio{node="pve1"} 0.25'), {
      timeoutMs: 5000,
      what: "pve1's inventory",
    });
    const text = await scrape();
    const lines = text.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'corral_node_up{node="pve1"} 1',
        'corral_node_up{node="pve2"} 0',
        'corral_node_memory_total_bytes{node="pve1"} 8000000000',
        'corral_node_cpus{node="pve1"} 8',
        'corral_agents_connected 1',
        'corral_guest_up{node="pve1",vmid="100",type="qemu",name="web"} 0',
        `corral_guest_memory_total_bytes{node="pve1",vmid="100",type="qemu",name="web"} ${512 * MIB}`,
        'corral_guest_cpus{node="pve1",vmid="100",type="qemu",name="web"} 2',
        `corral_guest_disk_total_bytes{node="pve1",vmid="100",type="qemu",name="web"} ${8 * GIB}`,
        '# TYPE corral_http_request_duration_seconds histogram',
        'corral_webhook_deliveries{state="pending"} 0',
        'corral_webhook_deliveries{state="failed"} 0',
      ]),
    );
    // Only for the agents this replica holds.
    const age = Number(lines.find((line) => line.startsWith('corral_agent_heartbeat_age_seconds{node="pve1"}'))?.split(' ')[1]);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(text).not.toContain('corral_agent_heartbeat_age_seconds{node="pve2"}');
    // An offline node has no figures beyond being down.
    expect(text).not.toContain('corral_node_cpus{node="pve2"}');
    expect(lines.find((line) => line.startsWith('corral_database_connections{state="open"}'))).toMatch(/ [1-9]\d*$/);
    // The node-up events of pve1 were recorded; no dispatcher runs in this app, so they wait.
    expect(lines.find((line) => line.startsWith('corral_events_undispatched '))).toMatch(/ [1-9]\d*$/);
  });

  it('counts the requests by route template and status', async () => {
    dataOf(await call(t, 'GET', '/cluster/nextid'));
    expectError(await call(t, 'GET', '/cluster/nextid', { query: 'vmid=100' }), 400, 'VM 100 already exists', 'vmid');
    expect((await call(t, 'GET', '/no/such/path')).status).toBe(404);
    const text = await scrape();
    expect(text).toMatch(/^corral_http_requests_total\{method="GET",route="\/cluster\/nextid",status="200"\} 1$/m);
    expect(text).toMatch(/^corral_http_requests_total\{method="GET",route="\/cluster\/nextid",status="400"\} 1$/m);
    expect(text).toMatch(/^corral_http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
    expect(text).toMatch(/^corral_http_request_duration_seconds_count\{method="GET",route="\/cluster\/nextid"\} 2$/m);
  });

  it('counts the tasks started by type, and ended by type and status', async () => {
    const caller = {
      userid: 'root@pam',
      tokenid: null,
      method: 'basic',
      subject: { kind: 'user', userid: 'root@pam', groups: [] },
    } as const;
    const runner = t.app.get(TaskRunner);
    const ok = await runner.start({ node: 'pve1', type: 'metricsok', id: '', caller }, () => Promise.resolve());
    const failed = await runner.start({ node: 'pve1', type: 'metricsfail', id: '', caller }, () => Promise.reject(new Error('broken')));
    expect(await finished(t, 'pve1', ok)).toBe('OK');
    expect(await finished(t, 'pve1', failed)).toBe('broken');
    const text = await scrape();
    expect(text).toContain('corral_tasks_started_total{type="metricsok"} 1\n');
    expect(text).toContain('corral_tasks_started_total{type="metricsfail"} 1\n');
    expect(text).toContain('corral_tasks_ended_total{type="metricsok",status="ok"} 1\n');
    expect(text).toContain('corral_tasks_ended_total{type="metricsfail",status="error"} 1\n');
  });

  it('refuses a caller without Sys.Audit on / (403) and one without credentials (401)', async () => {
    expectError(await call(t, 'GET', '/metrics', { as: basic('nobody@pve', 'nobody-secret-1') }), 403, 'permission denied');
    expect((await call(t, 'GET', '/metrics', { as: {} })).status).toBe(401);
  });
});
