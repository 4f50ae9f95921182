import { waitFor, type FakeAgent } from '@corral/testing';
import type { Logger } from 'pino';
import { addUser, basic, call, dataOf, expectError, grant } from '../../test-support/access-fixture.js';
import { addWebVm, INVENTORY, joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { AgentHub } from '../agents/agent-hub.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { LOGGER } from '../logging/loggers.js';
import { HistoryConsolidation } from './history-consolidation.js';
import { LEVELS, MINUTE, slotOf } from './history-levels.js';
import { HistoryModule } from './history.module.js';
import { HistoryRecorder } from './history-recorder.js';
import { HistoryRepository } from './history.repository.js';

const MIB = 1024 ** 2;
const DAY = 86_400;
const WEEK = 7 * DAY;
const AUDITOR = basic('auditor@pve', 'auditor-secret-1');

type Point = { time: number } & Record<string, number>;

describe('the history (rrddata)', () => {
  let t: TestApp;
  let agent: FakeAgent;
  /** A recorder of its own, ticked by the test at the times it chooses (the app's own reads every 10 s). */
  let recorder: HistoryRecorder;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, HistoryModule] });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), {
      answer: (request) => ({ result: request.command === 'storage.activate' ? { active: true } : null }),
    });
    await joinNode(t, 'pve2');
    await addWebVm(t);
    dataOf(await call(t, 'POST', '/storage', { form: { storage: 'backups', type: 'dir', path: '/srv/backups', content: 'backup' } }));
    await addUser(t, 'auditor@pve', { password: 'auditor-secret-1' });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
    recorder = new HistoryRecorder(
      t.app.get(NodeView),
      t.app.get(GuestView),
      t.app.get(AgentHub),
      t.app.get(HistoryRepository),
      t.app.get<Logger>(LOGGER),
    );
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  const rrddata = async (path: string, query = 'timeframe=hour') => dataOf<Point[]>(await call(t, 'GET', path, { query }));

  /** Reports of the node and its running VM at uptime `clock`, its counters at `rate` bytes per second since 0; waits until the views show them. */
  const report = async (clock: number, cpu: number, rate: number) => {
    agent.send({
      type: 'report',
      payload: {
        ...INVENTORY,
        cpu,
        uptime: 10_000 + clock,
        netin: 5e9 + rate * clock,
        diskwrite: 7e9 + rate * clock,
        loadavg: 0.5,
        iowait: 0.01,
        storages: [
          { storage: 'local', active: true, total: 1e11, used: 4e10 + clock, avail: 6e10 - clock },
          { storage: 'backups', active: false, total: 0, used: 0, avail: 0 },
        ],
      },
    });
    agent.send({
      type: 'report',
      payload: {
        kind: 'runtime',
        guests: [
          {
            vmid: 100,
            type: 'qemu',
            status: 'running',
            pid: 4242,
            uptime: clock,
            cpu,
            mem: 256 * MIB,
            netin: rate * clock,
            diskwrite: 2 * rate * clock,
          },
        ],
      },
    });
    await waitFor(
      () =>
        t.app.get(GuestView).get(100)?.runtime?.uptime === clock && t.app.get(NodeView).get('pve1')?.inventory?.uptime === 10_000 + clock,
      {
        timeoutMs: 5000,
        what: 'the reports',
      },
    );
  };

  it("keeps a point a minute of the node's and its guests' figures, with the counters' rates, and answers them as PVE does", async () => {
    // Two minutes that ended before now: 10-s readings, the load rising, 1000 bytes per second.
    const start = slotOf(MINUTE, Date.now() / 1000) - 180;
    for (let second = 0; second <= 120; second += 10) {
      await report(second, 0.1 + second / 200, 1000);
      await recorder.tick(start + second);
    }
    const node = await rrddata('/nodes/pve1/rrddata');
    expect(node).toHaveLength(70);
    const times = node.map((point) => point.time);
    expect(times.every((time, index) => index === 0 || time - (times[index - 1] ?? 0) === 60)).toBe(true);
    const [first, second] = [node.find((point) => point.time === start), node.find((point) => point.time === start + 60)];
    expect(first).toMatchObject({
      memused: 2e9,
      memtotal: 8e9,
      maxcpu: 8,
      loadavg: 0.5,
      iowait: 0.01,
      rootused: 4e10,
      netin: 1000,
      diskwrite: 1000,
    });
    // 0.1 + 0 .. 50 s / 200 averaged; the next minute higher.
    expect(first?.cpu).toBeCloseTo(0.225, 5);
    expect(second?.cpu).toBeCloseTo(0.525, 5);
    // A minute without readings has its time only.
    expect(node.find((point) => point.time === start - 60)).toEqual({ time: start - 60 });

    const vm = await rrddata('/nodes/pve1/qemu/100/rrddata', 'timeframe=hour&cf=MAX');
    expect(vm.find((point) => point.time === start)).toEqual({
      time: start,
      cpu: 0.35,
      maxcpu: 2,
      mem: 256 * MIB,
      maxmem: 512 * MIB,
      disk: 0,
      maxdisk: 8 * 1024 ** 3,
      netin: 1000,
      diskwrite: 2000,
    });
    // An active storage's space; an inactive one's is not kept.
    const storage = await rrddata('/nodes/pve1/storage/local/rrddata', 'timeframe=hour&cf=MAX');
    expect(storage.find((point) => point.time === start)).toEqual({ time: start, total: 1e11, used: 4e10 + 50 });
    expect((await rrddata('/nodes/pve1/storage/backups/rrddata')).filter((point) => Object.keys(point).length > 1)).toEqual([]);
  });

  it('answers the coarser time frames with their own intervals, and the node also a decade', async () => {
    for (const [timeframe, step, points] of [
      ['day', 1800, 70],
      ['week', 10_800, 70],
      ['month', 43_200, 70],
      ['year', 604_800, 70],
      ['decade', 604_800, 520],
    ] as const) {
      const answer = await rrddata('/nodes/pve1/rrddata', `timeframe=${timeframe}`);
      expect(answer).toHaveLength(points);
      expect((answer[1]?.time ?? 0) - (answer[0]?.time ?? 0)).toBe(step);
      expect((answer.at(-1)?.time ?? 0) % step).toBe(0);
    }
  });

  it('refuses what PVE refuses, naming the parameter, and what does not exist', async () => {
    expectError(await call(t, 'GET', '/nodes/pve1/rrddata'), 400, "parameter 'timeframe' is missing", 'timeframe');
    expectError(
      await call(t, 'GET', '/nodes/pve1/rrddata', { query: 'timeframe=minute' }),
      400,
      "value 'minute' is not one of hour, day, week, month, year, decade",
      'timeframe',
    );
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/100/rrddata', { query: 'timeframe=decade' }), 400, "value 'decade'", 'timeframe');
    expectError(
      await call(t, 'GET', '/nodes/pve1/rrddata', { query: 'timeframe=hour&cf=MIN' }),
      400,
      "value 'MIN' is not one of AVERAGE, MAX",
      'cf',
    );
    expectError(await call(t, 'GET', '/nodes/ghost/rrddata', { query: 'timeframe=hour' }), 404, "node 'ghost' does not exist");
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/999/rrddata', { query: 'timeframe=hour' }), 404, 'VM 999 does not exist');
    expectError(await call(t, 'GET', '/nodes/pve1/lxc/100/rrddata', { query: 'timeframe=hour' }), 404, 'CT 100 does not exist');
    expectError(
      await call(t, 'GET', '/nodes/pve2/qemu/100/rrddata', { query: 'timeframe=hour' }),
      404,
      "VM 100 does not exist on node 'pve2'",
    );
    expectError(
      await call(t, 'GET', '/nodes/pve1/storage/nowhere/rrddata', { query: 'timeframe=hour' }),
      404,
      "storage 'nowhere' does not exist",
    );
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/999/rrd', { query: 'timeframe=hour&ds=cpu' }), 404, 'VM 999 does not exist');
    expectError(
      await call(t, 'GET', '/nodes/pve1/rrd', { query: 'timeframe=hour&ds=cpu' }),
      501,
      'graphs are not built: GET the same path with rrddata in place of rrd for the points',
    );
  });

  it("shows a guest's history to a caller who may audit it, and its node's only with Sys.Audit on the node", async () => {
    expect(dataOf<Point[]>(await call(t, 'GET', '/nodes/pve1/qemu/100/rrddata', { query: 'timeframe=day', as: AUDITOR }))).toHaveLength(70);
    expect((await call(t, 'GET', '/nodes/pve1/rrddata', { query: 'timeframe=day', as: AUDITOR })).status).toBe(403);
  });

  it('stays within its bound: a year of minute points leaves each level its number of points', async () => {
    const repository = t.app.get(HistoryRepository);
    const consolidation = new HistoryConsolidation(repository);
    const now = Math.floor(Date.now() / 1000);
    // A week of minute points at a time, each followed by the consolidation and the cut, over a year.
    for (let week = 52; week > 0; week--) {
      const end = slotOf(MINUTE, now - (week - 1) * WEEK);
      const points = Array.from({ length: WEEK / 60 }, (_, minute) => {
        const slot = end - WEEK + minute * 60;
        // cpu 0.2, with one spike a day at noon.
        const cpu = (slot % DAY) / 60 === 720 ? 0.9 : 0.2;
        return { series: 'vm/9001', slot, avg: { cpu }, max: { cpu } };
      });
      await repository.write(MINUTE, points);
      await consolidation.run(end);
    }
    const rows = (await t.dataSource.query(
      `SELECT "step", count(*)::int AS "points" FROM "history_points" WHERE "series" = 'vm/9001' GROUP BY "step"`,
    )) as { step: number; points: number }[];
    const counts = new Map(rows.map((row) => [row.step, row.points]));
    for (const level of LEVELS.slice(0, -1)) {
      expect(counts.get(level.step)).toBeLessThanOrEqual(level.keep);
      expect(counts.get(level.step)).toBeGreaterThanOrEqual(level.keep - 2);
    }
    // A year of weekly points: fewer than the ten years the weekly level keeps.
    expect(counts.get(604_800)).toBeGreaterThanOrEqual(50);
    expect(counts.get(604_800)).toBeLessThanOrEqual(54);
    // The consolidations keep the averages and the maxima apart.
    const [day] = (await t.dataSource.query(
      `SELECT "avg", "max" FROM "history_points" WHERE "series" = 'vm/9001' AND "step" = 43200 ORDER BY "slot" DESC LIMIT 1 OFFSET 2`,
    )) as { avg: { cpu: number }; max: { cpu: number } }[];
    expect(day?.max.cpu).toBe(0.9);
    expect(day?.avg.cpu).toBeGreaterThan(0.2);
    expect(day?.avg.cpu).toBeLessThan(0.21);
    await t.dataSource.query(`DELETE FROM "history_points" WHERE "series" = 'vm/9001'`);
  }, 60_000);
});
