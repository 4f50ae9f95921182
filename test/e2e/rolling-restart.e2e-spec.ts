import { processesUnder, waitFor, type AgentProcess, type ControlPlaneProcess } from '@corral/testing';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startReplicas, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';

const ROOT_PASSWORD = 'rolling-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 90_000;
const VMID = 160;
const FAILBACK_VMID = 161;
/** A short HA lease (the agent fences 5 s before it ends): each replica's downtime must be bridged quickly. */
const LEASE_S = 15;

// Three replicas on one database, two real agents (native driver) and HA VMs. The HA manager moves
// a VM of a node another replica holds to its preferred node. Then every replica is
// restarted in turn, as an upgrade does. The agents move to the replicas that are up, their HA
// leases are renewed there, the HA manager moves with the advisory lock, and the VM keeps running
// in the same QEMU process: nothing is fenced.
describe('a rolling restart of three replicas', () => {
  let root: string;
  let databaseUrl: string;
  let replicas: ControlPlaneProcess[];
  const agents: AgentProcess[] = [];
  let db: pg.Client;

  const through = (index: number) => guestApi(replicas[index] ?? fail(), ROOT_PASSWORD, PATIENCE_MS);
  const bothOnline = async (index: number) =>
    data<{ status: string }[]>(await through(index).send('/nodes')).filter((node) => node.status === 'online').length === 2;
  const qemuPid = async (index: number) =>
    data<{ status: string; pid?: number }>(await through(index).send(`/nodes/host1/qemu/${VMID}/status/current`));

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-rolling-'));
    databaseUrl = await testDatabaseUrl();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    replicas = await startReplicas(3, {
      root,
      databaseUrl,
      env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD, CORRAL_HA_LEASE_S: String(LEASE_S) },
    });
    agents.push(await through(0).nativeAgent(root, 'host1'), await through(1).nativeAgent(root, 'host2'));
    for (const index of [0, 1, 2])
      await waitFor(() => bothOnline(index), { timeoutMs: PATIENCE_MS, what: `both nodes online on replica ${index + 1}` });
    // A storage both nodes share (host2's /mnt/ha is a link to host1's, as an NFS mount on both would be): HA VMs move live.
    await mkdir(join(root, 'host1', 'mnt', 'ha'), { recursive: true });
    await mkdir(join(root, 'host2', 'mnt'), { recursive: true });
    await symlink(join(root, 'host1', 'mnt', 'ha'), join(root, 'host2', 'mnt', 'ha'));
    const storage = { storage: 'ha', type: 'dir', path: '/mnt/ha', content: 'images', shared: 1 };
    expect((await through(0).send('/storage', 'POST', storage)).status).toBe(200);
  }, 2 * PATIENCE_MS);

  it(
    "moves an HA VM back to its group's preferred node when another replica than the HA manager's holds the VM's node",
    async () => {
      // Where the manager runs (its holder is `<host>:<pid>`), and a node another replica holds: host1 is replica 1's, host2 replica 2's.
      const master = data<{ type: string; node: string }[]>(await through(0).send('/cluster/ha/status/current')).find(
        (entry) => entry.type === 'master',
      );
      const manager = replicas.findIndex((replica) => master?.node.endsWith(`:${replica.child.pid}`));
      expect(manager).toBeGreaterThanOrEqual(0);
      const [from, to] = manager === 0 ? ['host2', 'host1'] : ['host1', 'host2'];
      const api = through(0);
      const current = async () => {
        const answer = await api.send(`/nodes/${to}/qemu/${FAILBACK_VMID}/status/current`);
        return answer.status === 200 ? data<{ status: string }>(answer).status : 'elsewhere';
      };
      expect((await api.send('/cluster/ha/groups', 'POST', { group: 'prefer', nodes: `${to}:2,${from}:1` })).status).toBe(200);
      expect(
        await api.task(from, `/nodes/${from}/qemu`, 'POST', { vmid: FAILBACK_VMID, name: 'failback', memory: 64, scsi0: 'ha:0.0625' }),
      ).toBe('OK');
      expect(
        (await api.send('/cluster/ha/resources', 'POST', { sid: `vm:${FAILBACK_VMID}`, state: 'started', group: 'prefer' })).status,
      ).toBe(200);
      await waitFor(async () => (await current()) === 'running', { timeoutMs: PATIENCE_MS, what: `vm:${FAILBACK_VMID} running on ${to}` });
      const moves = data<{ type: string; status: string }[]>(
        await api.send(`/nodes/${from}/tasks?vmid=${FAILBACK_VMID}&typefilter=qmigrate`),
      );
      expect(moves).toEqual([expect.objectContaining({ type: 'qmigrate', status: 'OK' })]);
      expect((await api.send(`/cluster/ha/resources/vm:${FAILBACK_VMID}`, 'PUT', { state: 'stopped' })).status).toBe(200);
      await waitFor(async () => (await current()) === 'stopped', { timeoutMs: PATIENCE_MS, what: `vm:${FAILBACK_VMID} stopped` });
      expect((await api.send(`/cluster/ha/resources/vm:${FAILBACK_VMID}`, 'DELETE')).status).toBe(200);
      expect(await api.task(to, `/nodes/${to}/qemu/${FAILBACK_VMID}`, 'DELETE')).toBe('OK');
    },
    3 * PATIENCE_MS,
  );

  afterAll(async () => {
    for (const agent of agents) await agent.kill();
    for (const pid of await processesUnder(root)) process.kill(pid, 'SIGKILL');
    for (const replica of replicas ?? []) await replica.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  it(
    'fences no HA guest: the VM runs on in the same process, and no HA event is written',
    async () => {
      const api = through(0);
      expect(await api.task('host1', '/nodes/host1/qemu', 'POST', { vmid: VMID, name: 'rolling', memory: 64, scsi0: 'local:0.0625' })).toBe(
        'OK',
      );
      expect((await api.send('/cluster/ha/resources', 'POST', { sid: `vm:${VMID}`, state: 'started' })).status).toBe(200);
      // Replica 0 shows the pid from what host1's replica shares, within a few seconds of the start.
      await waitFor(async () => (await qemuPid(0)).pid !== undefined, { timeoutMs: PATIENCE_MS, what: `vm:${VMID} started by HA` });
      const { pid } = await qemuPid(0);
      expect(pid).toEqual(expect.any(Number));

      for (const index of [0, 1, 2]) {
        replicas[index] = await (replicas[index] ?? fail()).restart();
        for (const each of [0, 1, 2])
          await waitFor(() => bothOnline(each), { timeoutMs: PATIENCE_MS, what: `both nodes online on replica ${each + 1}` });
        // Longer than a lease: the one granted before the move has run out by then, so the agent holds one from its new replica.
        await new Promise((resolve) => setTimeout(resolve, LEASE_S * 1000));
        expect(await qemuPid((index + 1) % 3)).toMatchObject({ status: 'running', pid });
      }

      const events = (await db.query(`SELECT "event" FROM "events" WHERE "event" LIKE 'ha-%' OR "event" = 'node-down'`)).rows;
      expect(events).toEqual([]);
      // The HA manager runs on one of the restarted replicas: it still answers the request to stop the VM.
      expect((await through(2).send(`/cluster/ha/resources/vm:${VMID}`, 'PUT', { state: 'stopped' })).status).toBe(200);
      await waitFor(async () => (await qemuPid(2)).status === 'stopped', { timeoutMs: PATIENCE_MS, what: `vm:${VMID} stopped by HA` });
      expect((await through(2).send(`/cluster/ha/resources/vm:${VMID}`, 'DELETE')).status).toBe(200);
      expect(await through(2).task('host1', `/nodes/host1/qemu/${VMID}`, 'DELETE')).toBe('OK');
    },
    5 * PATIENCE_MS,
  );
});
