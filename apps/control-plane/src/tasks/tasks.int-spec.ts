import type { RequestFrame } from '@corral/protocol';
import { waitFor, type FakeAgent, type FakeAnswer } from '@corral/testing';
import { addRole, addToken, addUser, apiToken, basic, call, dataOf, expectError, grant } from '../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Principal } from '../http/principal.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { DatabaseNotifications } from '../database/notifications.js';
import { HostModule } from '../host/host.module.js';
import { ReplicasRepository } from '../replicas/replicas.repository.js';
import { REPLICA_STOPPED } from './orphan-ends.js';
import { ReplicaLiveness } from './replica-liveness.js';
import { TaskEnds } from './task-ends.js';
import { TaskRunner } from './task-runner.js';
import type { TaskRow } from './task.entity.js';
import { TASK_STOPS_CHANNEL, TasksRepository } from './tasks.repository.js';
import { formatUpid } from './upid.js';

const PASSWORD = 'tasks-password';
const ALICE = basic('alice@pve', PASSWORD);
const AUDITOR = basic('auditor@pve', PASSWORD);
const OPS = basic('ops@pve', PASSWORD);
const CI_SECRET = '6f1c7d2e-0a4b-4c3d-9e8f-333333333333';
const WAIT = { timeoutMs: 20_000 };
const ROOT_CALLER: Principal = {
  userid: 'root@pam',
  tokenid: null,
  method: 'basic',
  subject: { kind: 'user', userid: 'root@pam', groups: [] },
};

/** A door a task's work waits behind until the test opens it. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

type Status = { status: string; exitstatus?: string; user: string; tokenid?: string };
type Entry = { upid: string; status?: string; endtime?: number; user: string; tokenid?: string };

describe('tasks', () => {
  let t: TestApp;
  let agent: FakeAgent;
  const asked: RequestFrame[] = [];
  let pid = 0;

  const repository = () => t.app.get(TasksRepository);
  const replica = () => t.app.get(ReplicaLiveness).id;
  const status = async (node: string, upid: string, query?: string) =>
    dataOf<Status>(await call(t, 'GET', `/nodes/${node}/tasks/${upid}/status`, query !== undefined ? { query } : {}));
  const lastLine = async (node: string, upid: string) =>
    dataOf<{ t: string }[]>(await call(t, 'GET', `/nodes/${node}/tasks/${upid}/log`, { query: 'limit=0' })).at(-1)?.t;
  const upids = async (node: string, query = '', as = {}) =>
    dataOf<Entry[]>(await call(t, 'GET', `/nodes/${node}/tasks`, { query, ...as })).map((entry) => entry.upid);

  /** A task written as the runner writes it: running on `replica` (this app's by default), or ended with `exitstatus`. */
  async function seed(task: Partial<TaskRow> & { node: string; starttime: number }, exitstatus?: string): Promise<string> {
    const fields = { pid: ++pid, pstart: 1, type: 'qmstart', id: '', user: 'root@pam', ...task };
    const upid = formatUpid(fields);
    await repository().insert({ upid, ...fields, replica: task.replica ?? replica() });
    if (exitstatus !== undefined) await repository().end(upid, exitstatus);
    return upid;
  }

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, HostModule] });
    await addUser(t, 'alice@pve', { password: PASSWORD });
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await addUser(t, 'ops@pve', { password: PASSWORD });
    await addToken(t, 'root@pam', 'ci', { privsep: false, secret: CI_SECRET });
    await addRole(t, 'TaskStopper', ['Sys.Modify']);
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
    await grant(t, { path: '/nodes/pve1', type: 'user', ugid: 'ops@pve', roleid: 'TaskStopper' });
    await joinNode(t, 'filters');
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), {
      answer: (request) => {
        asked.push(request);
        // Never answered: these tests stop the tasks, or end them otherwise.
        return new Promise<FakeAnswer>(() => undefined);
      },
    });
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  describe('GET /nodes/{node}/tasks', () => {
    let ok: string, failed: string, warned: string, running: string;

    beforeAll(async () => {
      ok = await seed({ node: 'filters', type: 'qmstart', id: '100', starttime: 1000 }, 'OK');
      failed = await seed({ node: 'filters', type: 'qmstop', id: '100', user: 'alice@pve', starttime: 2000 }, 'VM 100 not running');
      warned = await seed({ node: 'filters', type: 'vzdump', user: 'root@pam!ci', starttime: 3000 }, 'WARNINGS: 2');
      running = await seed({ node: 'filters', type: 'qmstart', id: '101', starttime: 4000 });
    });

    it("lists finished tasks, newest first, with PVE's fields: status as they ended, endtime, a token's tasks as owner and tokenid", async () => {
      const list = dataOf<Entry[]>(await call(t, 'GET', '/nodes/filters/tasks'));
      expect(list.map((entry) => entry.upid)).toEqual([warned, failed, ok]);
      expect(list[0]).toEqual({
        upid: warned,
        node: 'filters',
        pid: expect.any(Number),
        pstart: 1,
        starttime: 3000,
        type: 'vzdump',
        id: '',
        user: 'root@pam',
        tokenid: 'ci',
        status: 'WARNINGS: 2',
        endtime: expect.any(Number),
      });
      expect(list[1]).toEqual(expect.objectContaining({ user: 'alice@pve', status: 'VM 100 not running' }));
      expect(list[1]).not.toHaveProperty('tokenid');
      expect(warned).toContain(':root@pam!ci:');
    });

    it('shows running tasks as RUNNING with source=active or all', async () => {
      expect(dataOf(await call(t, 'GET', '/nodes/filters/tasks', { query: 'source=active' }))).toEqual([
        {
          upid: running,
          node: 'filters',
          pid: expect.any(Number),
          pstart: 1,
          starttime: 4000,
          type: 'qmstart',
          id: '101',
          user: 'root@pam',
          status: 'RUNNING',
        },
      ]);
      expect(await upids('filters', 'source=all')).toEqual([running, warned, failed, ok]);
    });

    it('filters by vmid, type, user (a part of the name, in any case), errors, statusfilter and start time, and pages', async () => {
      expect(await upids('filters', 'vmid=100')).toEqual([failed, ok]);
      expect(await upids('filters', 'typefilter=qmstart&source=all')).toEqual([running, ok]);
      expect(await upids('filters', 'userfilter=ALICE')).toEqual([failed]);
      expect(await upids('filters', 'userfilter=root')).toEqual([warned, ok]);
      expect(await upids('filters', 'errors=1')).toEqual([warned, failed]);
      expect(await upids('filters', 'statusfilter=ok,warning')).toEqual([warned, ok]);
      expect(await upids('filters', 'statusfilter=error')).toEqual([failed]);
      expect(await upids('filters', 'statusfilter=unknown&source=all')).toEqual([running]);
      expect(await upids('filters', 'since=2000&until=3000')).toEqual([warned, failed]);
      expect(await upids('filters', 'start=1&limit=1')).toEqual([failed]);
      expectError(await call(t, 'GET', '/nodes/filters/tasks', { query: 'source=recent' }), 400, '', 'source');
      expectError(await call(t, 'GET', '/nodes/filters/tasks', { query: 'statusfilter=fine' }), 400, '', 'statusfilter');
      expectError(await call(t, 'GET', '/nodes/filters/tasks', { query: 'vmid=99' }), 400, '', 'vmid');
    });

    it('shows a caller its own tasks only, unless it has Sys.Audit on the node', async () => {
      expect(await upids('filters', '', { as: ALICE })).toEqual([failed]);
      expect(await upids('filters', 'source=all', { as: AUDITOR })).toEqual([running, warned, failed, ok]);
      expect(await upids('filters', '', { as: apiToken('root@pam!ci', CI_SECRET) })).toEqual([warned, failed, ok]);
      expectError(await call(t, 'GET', '/nodes/ghost/tasks'), 404, "node 'ghost' does not exist");
    });
  });

  describe('status and log', () => {
    it("answers 404 for a task that does not exist or is another node's, and 400 for what is not a UPID", async () => {
      const other = await seed({ node: 'pve1', starttime: 5000 }, 'OK');
      const missing = formatUpid({ node: 'pve1', pid: 1, pstart: 1, starttime: 1, type: 'qmstart', id: '', user: 'root@pam' });
      expectError(await call(t, 'GET', `/nodes/pve1/tasks/${missing}/status`), 404, `task '${missing}' does not exist`);
      expectError(await call(t, 'GET', `/nodes/filters/tasks/${other}/log`), 404, `task '${other}' does not exist`);
      expectError(await call(t, 'DELETE', `/nodes/pve1/tasks/${missing}`), 404, 'does not exist');
      expectError(await call(t, 'GET', '/nodes/pve1/tasks/UPID:nonsense/status'), 400, 'unable to parse worker upid', 'upid');
    });

    it("gives a token's task its owner and tokenid, and lets only the owner or an auditor read it", async () => {
      const upid = await seed({ node: 'pve1', user: 'root@pam!ci', starttime: 5001 }, 'OK');
      expect(await status('pve1', upid)).toEqual(
        expect.objectContaining({ user: 'root@pam', tokenid: 'ci', status: 'stopped', exitstatus: 'OK' }),
      );
      expectError(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/status`, { as: ALICE }), 403, 'permission denied');
      expect(dataOf<Status>(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/status`, { as: AUDITOR })).exitstatus).toBe('OK');
    });

    it('pages the log (limit 0: every line) and shows an empty log as one line, as PVE', async () => {
      const upid = await seed({ node: 'pve1', starttime: 5002 });
      expect(dataOf(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/log`))).toEqual([{ n: 1, t: 'no content' }]);
      await repository().appendLog(
        upid,
        Array.from({ length: 60 }, (_, i) => ({ n: i + 1, t: `line ${i + 1}` })),
      );
      await repository().end(upid, 'OK');
      expect(dataOf<unknown[]>(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/log`))).toHaveLength(50);
      const all = dataOf<{ n: number; t: string }[]>(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/log`, { query: 'limit=0' }));
      expect(all.map((line) => line.n)).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
      expect(all.at(-1)).toEqual({ n: 61, t: 'TASK OK' });
      expect(dataOf(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/log`, { query: 'start=59&limit=5' }))).toEqual([
        { n: 60, t: 'line 60' },
        { n: 61, t: 'TASK OK' },
      ]);
    });
  });

  describe('DELETE /nodes/{node}/tasks/{upid}', () => {
    it('stops a task on the agent: the agent gets a cancel for its request, the task ends with who stopped it', async () => {
      const upid = dataOf<string>(await call(t, 'POST', '/nodes/pve1/apt/update'));
      await waitFor(() => asked.some((request) => request.upid === upid), { ...WAIT, what: 'the request to reach the agent' });
      const request = asked.find((frame) => frame.upid === upid);
      expect((await status('pve1', upid)).status).toBe('running');

      expectError(await call(t, 'DELETE', `/nodes/pve1/tasks/${upid}`, { as: ALICE }), 403, 'permission denied');
      expectError(await call(t, 'DELETE', `/nodes/pve1/tasks/${upid}`, { as: AUDITOR }), 403, 'permission denied');
      expect(dataOf(await call(t, 'DELETE', `/nodes/pve1/tasks/${upid}`, { as: OPS }))).toBeNull();
      expect(await agent.next('cancel')).toEqual({ type: 'cancel', id: request?.id });
      expect(await status('pve1', upid, 'wait=30')).toEqual(
        expect.objectContaining({ status: 'stopped', exitstatus: 'task stopped by ops@pve' }),
      );
      expect(await lastLine('pve1', upid)).toBe('TASK ERROR: task stopped by ops@pve');

      // The agent's late answer and a second stop change nothing.
      agent.send({ type: 'failure', id: request?.id ?? '', code: 'failed', message: 'stopped by the control plane' });
      await agent.next('ack');
      expect(dataOf(await call(t, 'DELETE', `/nodes/pve1/tasks/${upid}`))).toBeNull();
      expect((await status('pve1', upid)).exitstatus).toBe('task stopped by ops@pve');
    });

    it('lets the owner stop its own task, also work that ignores the signal, and a task of this replica whose run is gone', async () => {
      const upid = await t.app
        .get(TaskRunner)
        .start({ node: 'pve1', type: 'srvreload', id: 'networking', caller: ROOT_CALLER }, () => new Promise(() => undefined));
      expect(dataOf(await call(t, 'DELETE', `/nodes/pve1/tasks/${upid}`))).toBeNull();
      expect(await status('pve1', upid, 'wait=30')).toEqual(
        expect.objectContaining({ status: 'stopped', exitstatus: 'task stopped by root@pam' }),
      );
      const orphan = await seed({ node: 'pve1', starttime: 5500 });
      expect(dataOf(await call(t, 'DELETE', `/nodes/pve1/tasks/${orphan}`))).toBeNull();
      expect(await status('pve1', orphan)).toEqual(expect.objectContaining({ status: 'stopped', exitstatus: 'task stopped by root@pam' }));
    });

    it('asks another replica through the database to stop a task it runs, and stops its own when asked so', async () => {
      const heard: (string | null)[] = [];
      t.app.get(DatabaseNotifications).subscribe(TASK_STOPS_CHANNEL, (payload) => void heard.push(payload));
      await t.app.get(ReplicasRepository).heartbeat('other-replica', 'https://other-replica.invalid:8006');
      const theirs = await seed({ node: 'pve1', starttime: 6000, replica: 'other-replica' });
      expect(dataOf(await call(t, 'DELETE', `/nodes/pve1/tasks/${theirs}`))).toBeNull();
      await waitFor(() => heard.length > 0, { ...WAIT, what: 'the stop request' });
      expect(heard.map((payload) => JSON.parse(payload ?? 'null'))).toEqual([{ upid: theirs, by: 'root@pam' }]);
      // The other replica ends it: here it still runs.
      expect((await status('pve1', theirs)).status).toBe('running');

      const ours = await t.app
        .get(TaskRunner)
        .start({ node: 'pve1', type: 'srvreload', id: 'networking', caller: ROOT_CALLER }, () => new Promise(() => undefined));
      await repository().requestStop(ours, 'ops@pve');
      expect(await status('pve1', ours, 'wait=30')).toEqual(
        expect.objectContaining({ status: 'stopped', exitstatus: 'task stopped by ops@pve' }),
      );
    });
  });

  describe('status?wait=', () => {
    it('answers as soon as the task ends, and holds no waiter after', async () => {
      const done = gate();
      const upid = await t.app
        .get(TaskRunner)
        .start({ node: 'pve1', type: 'srvreload', id: 'networking', caller: ROOT_CALLER }, async (_upid, log) => {
          await done.opened;
          log([{ n: 1, text: 'reloaded' }]);
        });
      // 300 s: only the end's notification can answer it within the test's time.
      const answer = call(t, 'GET', `/nodes/pve1/tasks/${upid}/status`, { query: 'wait=300' });
      await waitFor(() => t.app.get(TaskEnds).watched === 1, { ...WAIT, what: 'the request to wait' });
      done.open();
      expect(dataOf(await answer)).toEqual(expect.objectContaining({ status: 'stopped', exitstatus: 'OK' }));
      expect(t.app.get(TaskEnds).watched).toBe(0);
      expect(await lastLine('pve1', upid)).toBe('TASK OK');
    });

    it('answers running when the wait runs out, and refuses a wait beyond 300 s', async () => {
      const done = gate();
      const upid = await t.app
        .get(TaskRunner)
        .start({ node: 'pve1', type: 'srvreload', id: 'networking', caller: ROOT_CALLER }, () => done.opened);
      expect(await status('pve1', upid, 'wait=1')).toEqual(expect.objectContaining({ status: 'running' }));
      expect(await status('pve1', upid, 'wait=1')).not.toHaveProperty('exitstatus');
      expect(t.app.get(TaskEnds).watched).toBe(0);
      expectError(await call(t, 'GET', `/nodes/pve1/tasks/${upid}/status`, { query: 'wait=301' }), 400, 'at most 300', 'wait');
      done.open();
      expect((await status('pve1', upid, 'wait=30')).exitstatus).toBe('OK');
    });
  });

  describe('tasks never run forever', () => {
    it('a task whose agent goes away ends with an error naming the node', async () => {
      let pve2: FakeAgent | null = null;
      try {
        pve2 = await onlineAgent(t, 'pve2', await joinNode(t, 'pve2'), { answer: () => new Promise<FakeAnswer>(() => undefined) });
        const upid = dataOf<string>(await call(t, 'POST', '/nodes/pve2/apt/update'));
        pve2.stopHeartbeats();
        expect(await status('pve2', upid, 'wait=60')).toEqual(
          expect.objectContaining({
            status: 'stopped',
            exitstatus: "node 'pve2' went away before it answered node.apt.update (no heartbeat for 10 s)",
          }),
        );
        expect(await lastLine('pve2', upid)).toBe(
          "TASK ERROR: node 'pve2' went away before it answered node.apt.update (no heartbeat for 10 s)",
        );
      } finally {
        pve2?.close();
      }
    });

    it('the running tasks of a replica unseen for 30 s, or of none, are ended by any replica; those of live replicas go on', async () => {
      await t.app.get(ReplicasRepository).heartbeat('dead-replica', 'https://dead-replica.invalid:8006');
      await t.dataSource.query(`UPDATE "replicas" SET "seen" = now() - interval '60 seconds' WHERE "id" = 'dead-replica'`);
      await t.app.get(ReplicasRepository).heartbeat('live-replica', 'https://live-replica.invalid:8006');
      const dead = await seed({ node: 'pve1', starttime: 7000, replica: 'dead-replica' });
      const unknown = await seed({ node: 'pve1', starttime: 7001, replica: '' });
      const live = await seed({ node: 'pve1', starttime: 7002, replica: 'live-replica' });
      await t.app.get(ReplicaLiveness).check();
      for (const upid of [dead, unknown]) {
        expect(await status('pve1', upid)).toEqual(expect.objectContaining({ status: 'stopped', exitstatus: REPLICA_STOPPED }));
        expect(await lastLine('pve1', upid)).toBe(`TASK ERROR: ${REPLICA_STOPPED}`);
      }
      expect((await status('pve1', live)).status).toBe('running');
      const replicas = ((await t.dataSource.query('SELECT "id" FROM "replicas"')) as { id: string }[]).map((row) => row.id);
      expect(replicas).toEqual(expect.arrayContaining(['live-replica', replica()]));
      expect(replicas).not.toContain('dead-replica');
    });
  });

  describe('GET /cluster/tasks', () => {
    it("lists every node's running and recent tasks, newest first, all with Sys.Audit on / and else the caller's own", async () => {
      // Started later than any other task of these tests: the newest two.
      const now = Math.floor(Date.now() / 1000);
      const running = await seed({ node: 'filters', user: 'alice@pve', starttime: now + 3600 });
      const finished = await seed({ node: 'pve1', starttime: now + 3000 }, 'VM 100 not running');
      const all = dataOf<Entry[]>(await call(t, 'GET', '/cluster/tasks', { as: AUDITOR }));
      expect(all.slice(0, 2)).toEqual([
        {
          upid: running,
          node: 'filters',
          pid: expect.any(Number),
          pstart: 1,
          starttime: now + 3600,
          type: 'qmstart',
          id: '',
          user: 'alice@pve',
        },
        {
          upid: finished,
          node: 'pve1',
          pid: expect.any(Number),
          pstart: 1,
          starttime: now + 3000,
          type: 'qmstart',
          id: '',
          user: 'root@pam',
          status: 'VM 100 not running',
          endtime: expect.any(Number),
        },
      ]);
      const starts = all.map((entry) => Number.parseInt(entry.upid.split(':')[4] ?? '', 16));
      expect(starts).toEqual([...starts].sort((a, b) => b - a));

      const own = dataOf<Entry[]>(await call(t, 'GET', '/cluster/tasks', { as: ALICE }));
      expect(own.map((entry) => entry.upid)).toContain(running);
      expect(own.every((entry) => entry.user === 'alice@pve')).toBe(true);
    });
  });
});
