import { testPostgresProxy, waitFor, type TcpProxy } from '@corral/testing';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { call, dataOf, expectError } from '../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { DatabaseNotifications } from '../database/notifications.js';
import { DATABASE_UNREACHABLE } from '../errors/database-unreachable.js';
import { ReplicasRepository } from '../replicas/replicas.repository.js';
import { ReplicaLiveness } from './replica-liveness.js';
import { NEVER_RAN, TaskRunner } from './task-runner.js';
import { TasksModule } from './tasks.module.js';
import { TasksRepository } from './tasks.repository.js';

/** Bounds a wait for `what`: never a measure of speed. */
const within = (what: string) => ({ timeoutMs: 20_000, what });
const CALLER = { userid: 'root@pam', tokenid: null, method: 'basic', subject: { kind: 'user', userid: 'root@pam', groups: [] } } as const;

type Task = { upid: string; status?: string };

/** The control plane while PostgreSQL cannot be reached: its connections go through a proxy the test cuts and restores. */
describe('a database outage', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  /** A connection that does not go through the proxy: the test's own view of the database during the outage. */
  let direct: pg.Client;

  const taskStatus = async (upid: string) => (await t.app.get(TasksRepository).get(upid))?.exitstatus ?? 'running';

  beforeAll(async () => {
    const reach = await testPostgresProxy();
    proxy = reach.proxy;
    let directUrl = '';
    t = await startTestApp({
      imports: [ClusterModule, TasksModule],
      reachDatabase: (url) => {
        directUrl = url;
        return reach.through(url);
      },
    });
    direct = new pg.Client({ connectionString: directUrl });
    await direct.connect();
  });

  afterAll(async () => {
    await proxy?.restore();
    await direct?.end();
    await t?.close();
    await proxy?.cut();
  });

  afterEach(() => proxy.restore());

  it('answers 503 saying the database is unreachable, then answers again once it is back', async () => {
    dataOf<Task[]>(await call(t, 'GET', '/cluster/tasks'));
    await proxy.cut();
    await waitFor(() => !t.app.get(DatabaseNotifications).listening, within('the listener to notice the cut'));
    expectError(await call(t, 'GET', '/cluster/tasks'), 503, DATABASE_UNREACHABLE);
    expectError(
      await call(t, 'DELETE', '/nodes/pve1/tasks/UPID:pve1:00000001:00000001:00000001:outage::root@pam:'),
      503,
      DATABASE_UNREACHABLE,
    );
    await proxy.restore();
    await waitFor(async () => (await call(t, 'GET', '/cluster/tasks')).status === 200, within('the API to answer again'));
  });

  it('listens for notifications again, telling subscribers that some may have been missed', async () => {
    const notifications = t.app.get(DatabaseNotifications);
    const heard: (string | null)[] = [];
    notifications.subscribe('corral_outage_test', (payload) => void heard.push(payload));
    await waitFor(() => notifications.listening, within('the listener'));
    heard.length = 0;
    await proxy.cut();
    await waitFor(() => !notifications.listening, within('the listener to notice the cut'));
    expect(heard).toEqual([null]);
    // A read that must see every committed change cannot know it meanwhile.
    await expect(notifications.barrier()).rejects.toMatchObject({ message: DATABASE_UNREACHABLE });
    await proxy.restore();
    await waitFor(() => notifications.listening, within('the listener back'));
    expect(heard).toEqual([null, null]);
    await notifications.barrier();
    await direct.query(`NOTIFY corral_outage_test, 'after'`);
    await waitFor(() => heard.includes('after'), within('the notification after the outage'));
  });

  it('writes the end of a task that ended while the database was away once it is back', async () => {
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const upid = await t.app.get(TaskRunner).start({ node: 'pve1', type: 'outage', id: '', caller: CALLER }, () => finished);
    await proxy.cut();
    finish();
    const row = async () =>
      (await direct.query<{ exitstatus: string | null }>('SELECT "exitstatus" FROM "tasks" WHERE "upid" = $1', [upid])).rows[0];
    expect(await row()).toEqual({ exitstatus: null });
    await proxy.restore();
    await waitFor(async () => (await row())?.exitstatus === 'OK', within('the end of the task'));
  });

  it('ends a task whose row was written although its start lost the connection to the database, as never run', async () => {
    const repository = t.app.get(TasksRepository);
    const insert = repository.insert.bind(repository);
    // The server committed the row; the answer was lost with the connection.
    const lost = jest.spyOn(repository, 'insert').mockImplementationOnce(async (...args) => {
      await insert(...args);
      throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    });
    const work = jest.fn(() => Promise.resolve());
    await expect(t.app.get(TaskRunner).start({ node: 'pve1', type: 'outage', id: 'lost', caller: CALLER }, work)).rejects.toThrow(
      'Connection terminated unexpectedly',
    );
    lost.mockRestore();
    const row = async () =>
      (await direct.query<{ exitstatus: string | null }>(`SELECT "exitstatus" FROM "tasks" WHERE "id" = 'lost'`)).rows[0]?.exitstatus;
    await waitFor(async () => (await row()) === NEVER_RAN, within('the end of the task that never ran'));
    expect(work).not.toHaveBeenCalled();
  });

  it('ends no running task of a replica that is alive after an outage every replica missed heartbeats in', async () => {
    const liveness = t.app.get(ReplicaLiveness);
    const runner = t.app.get(TaskRunner);
    const never = () => new Promise<void>(() => undefined);
    const own = await runner.start({ node: 'pve1', type: 'outage', id: 'own', caller: CALLER }, never);
    const other = randomUUID();
    const repository = t.app.get(TasksRepository);
    await t.app.get(ReplicasRepository).heartbeat(other, 'https://other.invalid:8006');
    const upid = `UPID:pve1:00000001:00000001:00000001:outage:other:root@pam:`;
    await repository.insert({
      upid,
      node: 'pve1',
      pid: 1,
      pstart: 1,
      starttime: 1,
      type: 'outage',
      id: 'other',
      user: 'root@pam',
      replica: other,
    });
    await proxy.cut();
    await liveness.check();
    // The outage lasted longer than a replica's silence is tolerated: no replica beat in it.
    await direct.query(`UPDATE "replicas" SET "seen" = now() - interval '1 minute'`);
    await proxy.restore();
    await liveness.check();
    await liveness.check();
    expect({ own: await taskStatus(own), other: await taskStatus(upid) }).toEqual({ own: 'running', other: 'running' });
    await runner.stop({ upid: own, replica: liveness.id }, 'root@pam');
    await repository.end(upid, 'OK');
  });
});
