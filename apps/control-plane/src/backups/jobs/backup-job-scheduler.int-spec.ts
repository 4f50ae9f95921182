import { waitFor, type FakeAgent } from '@corral/testing';
import { pino } from 'pino';
import { setTimeout as delay } from 'node:timers/promises';
import { call, dataOf } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import type { Principal } from '../../http/principal.js';
import { AccessState } from '../../access/state/access-state.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import { PoolsModule } from '../../pools/pools.module.js';
import type { VzdumpOptions, VzdumpParams } from '../vzdump-params.js';
import type { VzdumpService } from '../vzdump.service.js';
import { BackupJobScheduler } from './backup-job-scheduler.js';
import { BackupJobsRepository } from './backup-jobs.repository.js';
import type { SchedulerClock } from './scheduler-clock.js';

const T0 = Date.parse('2030-01-07T10:00:00Z');
const MINUTE = 60_000;

interface Start {
  readonly node: string;
  readonly jobId: string | undefined;
  readonly caller: string;
  readonly selection: VzdumpOptions['selection'];
}

/**
 * The scheduler on real PostgreSQL, with a fake clock and a VzdumpService that records what it is
 * asked to start: several instances stand for control-plane replicas sharing the database.
 */
describe('backup job scheduler', () => {
  let t: TestApp;
  const agents: FakeAgent[] = [];
  let pve3Credential = '';
  let now = T0;
  const clock: SchedulerClock = { now: () => new Date(now), timeZone: 'UTC' };
  const starts: Start[] = [];
  // Slow enough that racing replicas find the claimed row still locked.
  const vzdump = {
    start: async (node: string, options: VzdumpOptions, caller: Principal, jobId?: string) => {
      starts.push({ node, jobId, caller: caller.userid, selection: options.selection });
      await delay(30);
      return `UPID:${node}:00000001:00000002:00000003:vzdump::root@pam:`;
    },
  } as unknown as VzdumpService;

  /** A scheduler as one replica runs it; in this process, every replica holds the agents that are connected. */
  const replica = () =>
    new BackupJobScheduler(
      new BackupJobsRepository(t.dataSource),
      vzdump,
      t.app.get(GuestView),
      t.app.get(NodeView),
      t.app.get(AgentHub),
      t.app.get(AccessState),
      pino({ level: 'silent' }),
      clock,
    );

  const addJob = (
    id: string,
    params: VzdumpParams,
    options: { schedule?: string; dueAfter?: number; repeatMissed?: boolean; node?: string; enabled?: boolean } = {},
  ) =>
    new BackupJobsRepository(t.dataSource).insert({
      id,
      schedule: options.schedule ?? '*/1',
      enabled: options.enabled ?? true,
      node: options.node ?? null,
      comment: null,
      repeatMissed: options.repeatMissed ?? true,
      params,
      dueAfter: new Date(options.dueAfter ?? T0),
    });
  const startsOf = (jobId: string) => starts.filter((start) => start.jobId === jobId);

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, PoolsModule] });
    for (const node of ['pve1', 'pve2', 'pve3']) {
      const credential = await joinNode(t, node);
      // pve3 stays offline until a test brings it.
      if (node === 'pve3') pve3Credential = credential;
      else agents.push(await onlineAgent(t, node, credential));
    }
    await waitFor(() => t.app.get(NodeView).get('pve2')?.online === true, { timeoutMs: 5000, what: 'the nodes online' });
    for (const [vmid, node] of [
      [100, 'pve1'],
      [101, 'pve1'],
      [200, 'pve2'],
      [300, 'pve3'],
    ] as const) {
      await t.app.get(GuestsRepository).insert({ vmid, type: 'qemu', node, config: {}, lock: null });
      await t.app.get(GuestView).reload(vmid);
    }
    dataOf(await call(t, 'POST', '/pools', { form: { poolid: 'prod' } }));
    dataOf(await call(t, 'PUT', '/pools/prod', { form: { vms: '101,200' } }));
  });
  afterAll(async () => {
    for (const agent of agents) agent.close();
    await t.close();
  });

  it('runs each slot of a one-minute job exactly once while four replicas race for it', async () => {
    await addJob('race', { vmid: [100] });
    const replicas = [replica(), replica(), replica(), replica()];
    for (let minute = 1; minute <= 12; minute += 1) {
      now = T0 + minute * MINUTE + 2000;
      await Promise.all(replicas.map((r) => r.runDue()));
      // A replica that looks again in the same minute finds nothing due.
      await Promise.all(replicas.map((r) => r.runDue()));
      expect(startsOf('race')).toHaveLength(minute);
    }
    expect(startsOf('race').every((start) => start.node === 'pve1' && start.caller === 'root@pam')).toBe(true);
  });

  it('does not run a slot before the job was created, and runs the first one after', async () => {
    now = T0 + 30_000;
    await addJob('fresh', { all: true }, { dueAfter: now });
    now = T0 + 59_999;
    await replica().runDue();
    expect(startsOf('fresh')).toHaveLength(0);
    now = T0 + MINUTE;
    await replica().runDue();
    expect(startsOf('fresh').length).toBeGreaterThan(0);
  });

  it('starts one vzdump per node holding selected guests, skipping offline nodes', async () => {
    now = T0 + 90 * MINUTE;
    await addJob('everything', { all: true, exclude: [100] }, { dueAfter: now - MINUTE });
    await addJob('pool', { pool: 'prod' }, { dueAfter: now - MINUTE });
    await addJob('one-node', { all: true }, { dueAfter: now - MINUTE, node: 'pve2' });
    await addJob('listed', { vmid: [100, 200, 300, 999] }, { dueAfter: now - MINUTE });
    await replica().runDue();
    const nodesOf = (jobId: string) => startsOf(jobId).map((start) => start.node);
    // 101 (pve1) and 200 (pve2); 300's node pve3 is offline.
    expect(nodesOf('everything')).toEqual(['pve1', 'pve2']);
    expect(startsOf('everything')[0]?.selection).toEqual({ kind: 'all', exclude: [100] });
    expect(nodesOf('pool')).toEqual(['pve1', 'pve2']);
    expect(nodesOf('one-node')).toEqual(['pve2']);
    // Guest 999 does not exist: left out, so that the others are backed up.
    expect(nodesOf('listed')).toEqual(['pve1', 'pve2']);
    expect(startsOf('listed')[0]?.selection).toEqual({ kind: 'vmids', vmids: [100, 200, 300] });
  });

  it('catches up a job that missed three slots while no replica ran, once, after a restart', async () => {
    now = T0 + 200 * MINUTE + 10_000;
    await addJob('missed', { vmid: [200] }, { dueAfter: now - 3 * MINUTE - 10_000 });
    const restarted = [replica(), replica()];
    await Promise.all(restarted.map((r) => r.runDue()));
    await Promise.all(restarted.map((r) => r.runDue()));
    expect(startsOf('missed')).toHaveLength(1);
    // The latest of the slots is the one it ran: the next one is the next minute's.
    const lastSlots = await new BackupJobsRepository(t.dataSource).lastSlots();
    expect(lastSlots.get('missed')?.get('pve2')?.toISOString()).toBe(new Date(T0 + 200 * MINUTE).toISOString());
    now += MINUTE;
    await restarted[0]?.runDue();
    expect(startsOf('missed')).toHaveLength(2);
  });

  it('skips missed slots of a job with repeat-missed=0 and runs its next one', async () => {
    // Every five minutes; the latest missed slot is 90 s old: no scheduler was running then.
    now = T0 + 300 * MINUTE + 90_000;
    await addJob('no-repeat', { vmid: [200] }, { schedule: '*/5', dueAfter: T0 + 286 * MINUTE, repeatMissed: false });
    await replica().runDue();
    expect(startsOf('no-repeat')).toHaveLength(0);
    now = T0 + 305 * MINUTE + 1000;
    await replica().runDue();
    expect(startsOf('no-repeat')).toHaveLength(1);
  });

  it('runs the slot a node missed while offline once, when its agent is back', async () => {
    now = T0 + 600 * MINUTE + 10_000;
    await addJob('offline', { vmid: [300] }, { dueAfter: now - MINUTE });
    const scheduler = replica();
    await scheduler.runDue();
    expect(startsOf('offline')).toHaveLength(0);
    now += 2 * MINUTE;
    agents.push(await onlineAgent(t, 'pve3', pve3Credential));
    await waitFor(() => t.app.get(AgentHub).holds('pve3'), { timeoutMs: 5000, what: 'pve3 held' });
    await Promise.all([scheduler.runDue(), replica().runDue()]);
    await scheduler.runDue();
    expect(startsOf('offline').map((start) => start.node)).toEqual(['pve3']);
  });

  it('leaves a disabled job alone', async () => {
    now = T0 + 400 * MINUTE;
    await addJob('off', { all: true }, { dueAfter: now - 5 * MINUTE, enabled: false });
    await replica().runDue();
    expect(startsOf('off')).toHaveLength(0);
  });

  it('catches up on start, then runs at the next slot on its own timer', async () => {
    now = T0 + 500 * MINUTE + 10_000;
    await addJob('looped', { vmid: [100] }, { dueAfter: now - 2 * MINUTE });
    const scheduler = replica();
    scheduler.onApplicationBootstrap();
    try {
      await waitFor(() => startsOf('looped').length === 1, { timeoutMs: 5000, what: 'the catch-up run' });
      // The clock reaches the next slot; the loop's next look (within its 5 s tick) runs it.
      now = T0 + 501 * MINUTE;
      await waitFor(() => startsOf('looped').length === 2, { timeoutMs: 10_000, what: 'the next run' });
    } finally {
      await scheduler.onApplicationShutdown();
    }
  });
});
