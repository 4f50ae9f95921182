import { waitFor, type FakeAgent } from '@corral/testing';
import type { GuestRuntime } from '@corral/protocol';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import type { GuestLock } from '../inventory/guests/guest.entity.js';
import { GuestsRepository } from '../inventory/guests/guests.repository.js';
import { REPLICA_STOPPED } from '../tasks/orphan-ends.js';
import { ReplicaLiveness } from '../tasks/replica-liveness.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { GuestsModule } from './guests.module.js';

// A lock whose task ended without releasing it (its replica killed) or whose task is missing is
// reconciled with what the guest's agent reports, by the replica that holds that agent.
describe('stale guest locks', () => {
  let t: TestApp;
  let agent: FakeAgent;
  let taskNumber = 0;

  const stopped = (vmid: number): GuestRuntime => ({ vmid, type: 'qemu', status: 'stopped', uptime: 0, cpu: 0, mem: 0 });
  const report = (to: FakeAgent, vmids: number[], making: number[] = []) =>
    to.send({
      type: 'report',
      payload: { kind: 'runtime', guests: vmids.map((vmid) => stopped(vmid)), ...(making.length > 0 ? { making } : {}) },
    });
  /** A running task of a replica that is gone, as a killed control plane leaves it. */
  const orphanedTask = async (node: string, vmid: number): Promise<string> => {
    taskNumber += 1;
    const upid = `UPID:${node}:${taskNumber.toString(16).toUpperCase().padStart(8, '0')}:00000001:6900000${taskNumber}:qmcreate:${vmid}:root@pam:`;
    await t.dataSource.query(
      `INSERT INTO "tasks" ("upid", "node", "type", "id", "user", "pid", "pstart", "starttime", "replica") VALUES ($1, $2, 'qmcreate', $3, 'root@pam', $4, 1, 1, 'a-replica-that-is-gone')`,
      [upid, node, String(vmid), taskNumber],
    );
    return upid;
  };
  /** Reconciles a later stale lock on pve1, guest `vmid`'s: once it is released, the turn of the locks before it has passed. */
  const turnPassed = async (vmid: number) => {
    await locked(vmid, 'pve1', 'snapshot', await orphanedTask('pve1', vmid));
    await t.app.get(ReplicaLiveness).check();
    await waitFor(async () => (await row(vmid))?.lock === null, { timeoutMs: 10_000, what: 'the later stale lock released' });
  };
  const locked = (vmid: number, node: string, lock: GuestLock, lockTask: string) =>
    t.app.get(GuestsRepository).insert({ vmid, type: 'qemu', node, config: { name: `vm${vmid}` }, lock, lockTask });
  const row = async (vmid: number) =>
    (
      (await t.dataSource.query(`SELECT "lock", "lock_task" AS "lockTask" FROM "guests" WHERE "vmid" = $1`, [vmid])) as {
        lock: string | null;
        lockTask: string | null;
      }[]
    )[0];
  const events = async (vmid: number) =>
    (
      (await t.dataSource.query(`SELECT "event", "details" FROM "events" WHERE "vmid" = $1 ORDER BY "seq"`, [vmid])) as {
        event: string;
        details: Record<string, unknown>;
      }[]
    ).map((each) => ({ event: each.event, status: each.details['status'] }));
  const exitOf = async (upid: string) =>
    ((await t.dataSource.query(`SELECT "exitstatus" FROM "tasks" WHERE "upid" = $1`, [upid])) as { exitstatus: string | null }[])[0]
      ?.exitstatus;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule] });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), { answer: () => ({ result: null }) });
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  it('a create whose task ended with its replica: unlocked when the agent has the guest, removed when it never made it', async () => {
    report(agent, [300]);
    const made = await orphanedTask('pve1', 300);
    const never = await orphanedTask('pve1', 301);
    await locked(300, 'pve1', 'create', made);
    await locked(301, 'pve1', 'create', never);
    await t.app.get(ReplicaLiveness).check();
    expect(await exitOf(made)).toBe(REPLICA_STOPPED);
    await waitFor(async () => (await row(300))?.lock === null && (await row(301)) === undefined, {
      timeoutMs: 10_000,
      what: 'the stale create locks reconciled',
    });
    expect(await row(300)).toEqual({ lock: null, lockTask: null });
    expect(await events(300)).toEqual([{ event: 'vm-create', status: undefined }]);
    expect(await events(301)).toEqual([]);
  });

  it('a create whose task ended while its agent still makes the guest waits for the making to end, then is unlocked', async () => {
    report(agent, [300], [340]);
    const upid = await orphanedTask('pve1', 340);
    await locked(340, 'pve1', 'create', upid);
    await t.app.get(ReplicaLiveness).check();
    await turnPassed(341);
    expect(await row(340)).toEqual({ lock: 'create', lockTask: upid });
    // The agent made it: listed, no longer making.
    report(agent, [300, 340]);
    await waitFor(async () => (await row(340))?.lock === null, { timeoutMs: 10_000, what: 'the guest unlocked once made' });
    expect(await events(340)).toEqual([{ event: 'vm-create', status: undefined }]);
  });

  it('a backup whose task ended is unlocked with its backup-end event of status error', async () => {
    const upid = await orphanedTask('pve1', 310);
    await locked(310, 'pve1', 'backup', upid);
    await t.app.get(ReplicaLiveness).check();
    await waitFor(async () => (await row(310))?.lock === null, { timeoutMs: 10_000, what: 'the stale backup lock released' });
    expect(await events(310)).toEqual([{ event: 'backup-end', status: 'error' }]);
  });

  it('a lock whose task still runs stays', async () => {
    const upid = await orphanedTask('pve1', 320);
    // Its replica is alive: this one.
    await t.dataSource.query(`UPDATE "tasks" SET "replica" = $2 WHERE "upid" = $1`, [upid, t.app.get(ReplicaLiveness).id]);
    await locked(320, 'pve1', 'create', upid);
    report(agent, [300]);
    await t.app.get(ReplicaLiveness).check();
    await turnPassed(321);
    expect(await row(320)).toEqual({ lock: 'create', lockTask: upid });
    await t.dataSource.query(`DELETE FROM "guests" WHERE "vmid" = 320`);
  });

  it("at start-up, locks whose task is missing wait for their node's agent and are reconciled with its first report", async () => {
    const credential = await joinNode(t, 'pve2');
    await locked(330, 'pve2', 'create', 'UPID:pve2:0000DEAD:00000001:69000000:qmcreate:330:root@pam:');
    await locked(331, 'pve2', 'clone', 'UPID:pve2:0000BEEF:00000001:69000000:qmclone:331:root@pam:');
    await t.dataSource.query(`UPDATE "guests" SET "lock_task" = NULL WHERE "vmid" = 331`);
    await t.app.get(ReplicaLiveness).check();
    // No agent of pve2 here: nothing can tell whether they were made.
    expect((await row(330))?.lock).toBe('create');
    expect((await row(331))?.lock).toBe('clone');
    const second = await onlineAgent(t, 'pve2', credential, { answer: () => ({ result: null }) });
    try {
      report(second, [331]);
      await waitFor(async () => (await row(330)) === undefined && (await row(331))?.lock === null, {
        timeoutMs: 10_000,
        what: "the locks reconciled with pve2's report",
      });
      expect(await events(331)).toEqual([{ event: 'vm-create', status: undefined }]);
    } finally {
      second.close();
    }
  });
});
