import { AgentProcess, processesUnder, waitFor, type ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi, type Form } from '../support/guest-api.js';

const run = promisify(execFile);
const ROOT_PASSWORD = 'ha-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 120_000;
/** The promise: an HA guest runs again within 60 s of its host failing. */
const RECOVERY_BUDGET_MS = 60_000;
/** host1's agent reaches the control plane on an address of its own, so that a firewall rule cuts it alone. */
const HOST1_ADDRESS = '127.0.0.2';
/** Its own per test process, so that two runs on one machine do not remove each other's rule. */
const CUT_TABLE = `corral_ha_e2e_${process.pid}`;

/**
 * Where a VM's QEMU runs, sampled every 100 ms for the whole test: a moment with the VM on both
 * nodes fails the test, however briefly it lasted.
 */
class Watcher {
  readonly seen: { at: number; host1: boolean; host2: boolean }[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly root: string,
    private readonly vmid: number,
  ) {}

  start(): void {
    const sample = async () => {
      const [host1, host2] = await Promise.all([this.runsOn('host1'), this.runsOn('host2')]);
      this.seen.push({ at: Date.now(), host1, host2 });
      if (this.timer !== null) this.timer = setTimeout(() => void sample(), 100);
    };
    this.timer = setTimeout(() => void sample(), 0);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Whether a QEMU of the VM runs under the node's host root (its pid file and sockets are there). */
  async runsOn(node: string): Promise<boolean> {
    const pids = await processesUnder(join(this.root, node, 'run', 'corral', 'qemu', `${this.vmid}.pid`));
    return pids.length > 0;
  }

  get both(): number {
    return this.seen.filter((sample) => sample.host1 && sample.host2).length;
  }

  lastOn(node: 'host1' | 'host2'): number {
    return this.seen.filter((sample) => sample[node]).at(-1)?.at ?? 0;
  }

  firstOn(node: 'host1' | 'host2', after: number): number {
    return this.seen.find((sample) => sample.at >= after && sample[node])?.at ?? Infinity;
  }
}

// An HA VM (real QEMU) on two real agents of the native driver, with a shared directory
// storage (host2's /mnt/ha is a link to host1's, as an NFS mount on both would be).
describe('HA: a VM of a failed node runs again on the other node, never on both', () => {
  let cp: ControlPlaneProcess;
  let db: pg.Client;
  let root: string;
  const agents = new Map<string, AgentProcess>();
  let api: ReturnType<typeof guestApi>;
  const send = (path: string, method?: string, form?: Form) => api.send(path, method, form);
  const task = (node: string, path: string, method?: string, form?: Form) => api.task(node, path, method, form);
  const onlineNodes = async () =>
    data<{ node: string; status: string }[]>(await send('/nodes'))
      .filter((node) => node.status === 'online')
      .map((node) => node.node)
      .sort();
  const guestNode = async (vmid: number) =>
    ((await db.query('SELECT "node" FROM "guests" WHERE "vmid" = $1', [vmid])).rows as { node: string }[])[0]?.node;
  const runningOn = async (node: string, vmid: number) => {
    const res = await send(`/nodes/${node}/qemu/${vmid}/status/current`);
    return res.status === 200 && data<{ status: string }>(res).status === 'running';
  };
  const leaseLeftS = async (node: string) =>
    Number(
      (
        (await db.query(`SELECT EXTRACT(EPOCH FROM "lease_until" - now()) AS "left" FROM "nodes" WHERE "name" = $1`, [node])).rows as {
          left: string | null;
        }[]
      )[0]?.left ?? -1,
    );
  const restartAgent = (node: string) => agents.set(node, AgentProcess.agent(join(root, `${node}.json`), { CORRAL_DRIVER: 'native' }));
  const haVm = async (vmid: number) => {
    expect(await task('host1', '/nodes/host1/qemu', 'POST', { vmid, name: `ha${vmid}`, memory: 64, scsi0: 'ha:0.0625' })).toBe('OK');
    expect((await send('/cluster/ha/resources', 'POST', { sid: `vm:${vmid}`, state: 'started' })).status).toBe(200);
    await waitFor(() => runningOn('host1', vmid), { timeoutMs: PATIENCE_MS, what: `vm:${vmid} started by HA on host1` });
  };

  /**
   * Runs HA VM `vmid` on host1, fails host1 with `fail` once host1 holds a lease that outlasts the
   * node-down detection, waits for the VM on host2, then `heal`s host1 and checks that it does not
   * run the VM again. Throughout, the VM must never run on both. Returns when host1 failed, when
   * its QEMU was last seen there and when host2's was first seen (epoch ms).
   */
  const failOver = async (vmid: number, fail: () => Promise<unknown>, heal: () => Promise<unknown>) => {
    await haVm(vmid);
    const watcher = new Watcher(root, vmid);
    watcher.start();
    try {
      await waitFor(() => watcher.seen.some((sample) => sample.host1), {
        timeoutMs: PATIENCE_MS,
        what: 'the watcher sees the VM on host1',
      });
      await waitFor(async () => (await leaseLeftS('host1')) > 20, { timeoutMs: PATIENCE_MS, what: "host1's HA lease" });
      const failedAt = Date.now();
      await fail();
      await waitFor(async () => (await guestNode(vmid)) === 'host2' && (await runningOn('host2', vmid)), {
        timeoutMs: PATIENCE_MS,
        what: `vm:${vmid} running on host2`,
      });
      await waitFor(() => watcher.firstOn('host2', failedAt) < Infinity, {
        timeoutMs: PATIENCE_MS,
        what: 'the watcher sees the VM on host2',
      });
      const outcome = { failedAt, lastOnHost1: watcher.lastOn('host1'), firstOnHost2: watcher.firstOn('host2', failedAt) };
      await heal();
      await waitFor(async () => (await onlineNodes()).length === 2, { timeoutMs: PATIENCE_MS, what: 'host1 back online' });
      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect(await watcher.runsOn('host1')).toBe(false);
      expect(await runningOn('host2', vmid)).toBe(true);
      expect(watcher.both).toBe(0);
      // Every start HA asked for went to an agent whose lease covered the VM: none was refused.
      expect(
        (
          await db.query(`SELECT "node", "exitstatus" FROM "tasks" WHERE "type" = 'qmstart' AND "id" = $1 ORDER BY "starttime"`, [
            String(vmid),
          ])
        ).rows,
      ).toEqual([
        { node: 'host1', exitstatus: 'OK' },
        { node: 'host2', exitstatus: 'OK' },
      ]);
      return outcome;
    } finally {
      watcher.stop();
    }
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-ha-'));
    const url = await testDatabaseUrl();
    db = new pg.Client({ connectionString: url });
    await db.connect();
    cp = await startOnTestDatabase({ databaseUrl: url, env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
    agents.set('host1', await api.nativeAgent(root, 'host1', HOST1_ADDRESS));
    agents.set('host2', await api.nativeAgent(root, 'host2'));
    await waitFor(async () => (await onlineNodes()).length === 2, { timeoutMs: PATIENCE_MS, what: 'both nodes online' });
    await mkdir(join(root, 'host1', 'mnt', 'ha'), { recursive: true });
    await mkdir(join(root, 'host2', 'mnt'), { recursive: true });
    await symlink(join(root, 'host1', 'mnt', 'ha'), join(root, 'host2', 'mnt', 'ha'));
    expect((await send('/storage', 'POST', { storage: 'ha', type: 'dir', path: '/mnt/ha', content: 'images', shared: 1 })).status).toBe(
      200,
    );
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    await run('nft', ['delete', 'table', 'inet', CUT_TABLE]).catch(() => undefined);
    for (const agent of agents.values()) await agent.kill();
    // VMs outlive their agents (as in PVE): the QEMUs a failed test left under this test's roots are killed here.
    for (const pid of await processesUnder(root)) process.kill(pid, 'SIGKILL');
    await cp?.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  it('host1 dies (its agent and its QEMU killed): the VM runs on host2 within 60 s, and host1 coming back does not start it again', async () => {
    const outcome = await failOver(
      100,
      async () => {
        await agents.get('host1')?.kill();
        for (const pid of await processesUnder(join(root, 'host1', 'run'))) process.kill(pid, 'SIGKILL');
      },
      async () => restartAgent('host1'),
    );
    expect(outcome.firstOnHost2 - outcome.failedAt).toBeLessThan(RECOVERY_BUDGET_MS);
    expect(outcome.lastOnHost1).toBeLessThan(outcome.firstOnHost2);
    const events = (await db.query(`SELECT "event", "node", "vmid" FROM "events" WHERE "event" LIKE 'ha-%' ORDER BY "seq"`)).rows as {
      event: string;
      node: string;
      vmid: number | null;
    }[];
    expect(events.map((event) => `${event.event}@${event.node}`)).toEqual(['ha-fence@host1', 'ha-recover@host2']);
    const tasks = (await db.query(`SELECT "node", "exitstatus" FROM "tasks" WHERE "type" = 'harecover' AND "id" = '100'`)).rows;
    expect(tasks).toEqual([{ node: 'host2', exitstatus: 'OK' }]);
  });

  it("host1's agent alone dies (SIGKILL; its QEMU lives on): the fence watchdog stops the VM before host2 starts it", async () => {
    const outcome = await failOver(
      102,
      async () => agents.get('host1')?.kill(),
      async () => restartAgent('host1'),
    );
    // The QEMU outlived its agent for a while, and was gone before host2 started the VM.
    expect(outcome.lastOnHost1 - outcome.failedAt).toBeGreaterThan(5000);
    expect(outcome.lastOnHost1).toBeLessThan(outcome.firstOnHost2);
    expect(outcome.firstOnHost2 - outcome.failedAt).toBeLessThan(RECOVERY_BUDGET_MS);
  });

  it("host1's connection is cut (a firewall rule): host1 stops the VM by itself before host2 starts it", async () => {
    const host1 = agents.get('host1');
    const rules = (port: number) =>
      [
        `table inet ${CUT_TABLE} {`,
        '  chain output {',
        '    type filter hook output priority 0;',
        `    ip daddr ${HOST1_ADDRESS} tcp dport ${port} drop`,
        `    ip saddr ${HOST1_ADDRESS} tcp sport ${port} drop`,
        '  }',
        '}',
        '',
      ].join('\n');
    const outcome = await failOver(
      101,
      async () => {
        await writeFile(join(root, 'cut.nft'), rules(cp.port));
        await run('nft', ['-f', join(root, 'cut.nft')]);
      },
      async () => run('nft', ['delete', 'table', 'inet', CUT_TABLE]),
    );
    expect(outcome.lastOnHost1).toBeLessThan(outcome.firstOnHost2);
    expect(outcome.firstOnHost2 - outcome.failedAt).toBeLessThan(RECOVERY_BUDGET_MS);
    expect(host1?.logLines.some((line) => String(line['msg']).startsWith('self-fence'))).toBe(true);
  });
});
