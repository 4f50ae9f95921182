import { AgentProcess, processesUnder, waitFor, type ControlPlaneProcess } from '@corral/testing';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReplicas, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';
import { uploadForm } from '../support/upload-form.js';
import { openVncConsole } from '../support/vnc-console.js';

const ROOT_PASSWORD = 'replicas-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;

// Three control-plane replicas on one database, the first two each holding the agent of one node
// (real agents on the native driver), the third none: every request for a node is served through
// any replica, one that does not hold the node's agent forwarding it to the one that does (or
// answering a read of its tasks or guests itself), and every replica's event stream shows every
// node's events.
describe('three replicas, two holding one node each: any replica serves any node', () => {
  let root: string;
  let replicas: ControlPlaneProcess[];
  const agents: AgentProcess[] = [];
  /** `corral events listen` through each replica. */
  const listeners: AgentProcess[] = [];
  /** The API through each replica, as root@pam. */
  let through: ReturnType<typeof guestApi>[];
  /** The node whose agent each of the first two replicas holds. */
  const NODES = ['host1', 'host2'] as const;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-replicas-'));
    replicas = await startReplicas(3, { root, databaseUrl: await testDatabaseUrl(), env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    through = replicas.map((replica) => guestApi(replica, ROOT_PASSWORD, PATIENCE_MS));
    for (const [index, node] of NODES.entries()) agents.push(await (through[index] ?? fail()).nativeAgent(root, node));
    for (const api of through)
      await waitFor(async () => data<{ status: string }[]>(await api.send('/nodes')).every((node) => node.status === 'online'), {
        timeoutMs: PATIENCE_MS,
        what: 'both nodes online on every replica',
      });
    for (const replica of replicas) {
      const listener = AgentProcess.cli(['events', 'listen', '--event-type', 'vm-create,vm-start,vm-stop,vm-delete'], {
        CORRAL_URL: `https://127.0.0.1:${replica.port}`,
        CORRAL_FINGERPRINT: replica.fingerprint,
        CORRAL_USER: 'root@pam',
        CORRAL_PASSWORD: ROOT_PASSWORD,
      });
      listeners.push(listener);
      await waitFor(() => listener.stderr.includes('following the events after seq'), {
        timeoutMs: PATIENCE_MS,
        what: `the listener on port ${replica.port} to connect: ${listener.stderr}`,
      });
    }
  }, 4 * PATIENCE_MS);

  afterAll(async () => {
    for (const listener of listeners) await listener.kill();
    for (const agent of agents) await agent.kill();
    for (const pid of await processesUnder(root)) process.kill(pid, 'SIGKILL');
    for (const replica of replicas ?? []) await replica.stop();
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    [0, 'host2', 200],
    [1, 'host1', 100],
    [2, 'host1', 110],
    [2, 'host2', 210],
  ] as const)(
    'through replica %i, runs a VM of %s (held by another replica): create, config, start, live status, stop, destroy, each task awaited there',
    async (index, node, vmid) => {
      const api = through[index] ?? fail();
      expect(await api.task(node, `/nodes/${node}/qemu`, 'POST', { vmid, name: `via${index}`, memory: 64, scsi0: 'local:0.0625' })).toBe(
        'OK',
      );
      expect(data<Record<string, unknown>>(await api.send(`/nodes/${node}/qemu/${vmid}/config`))).toMatchObject({
        name: `via${index}`,
        memory: '64',
      });
      expect(await api.task(node, `/nodes/${node}/qemu/${vmid}/config`, 'POST', { description: 'forwarded' })).toBe('OK');
      expect(await api.task(node, `/nodes/${node}/qemu/${vmid}/status/start`)).toBe('OK');
      // Running at once; the live figures (a pid) within a few seconds, from what the replica holding the agent shares.
      expect(data<{ status: string }>(await api.send(`/nodes/${node}/qemu/${vmid}/status/current`)).status).toBe('running');
      await waitFor(async () => data<{ pid?: number }>(await api.send(`/nodes/${node}/qemu/${vmid}/status/current`)).pid !== undefined, {
        timeoutMs: PATIENCE_MS,
        what: `the pid of VM ${vmid} through replica ${index}`,
      });
      // The monitor is the holder's: its QEMU answers.
      expect(data<string>(await api.send(`/nodes/${node}/qemu/${vmid}/monitor`, 'POST', { command: 'info status' }))).toMatch(/running/);
      // Every replica lists the VM with the live figures of its agent's reports: the one holding it, and the other through what it shares.
      for (const each of through)
        await waitFor(
          async () => {
            const entry = data<{ vmid: number; status: string; uptime?: number; mem?: number }[]>(
              await each.send('/cluster/resources?type=vm'),
            ).find((guest) => guest.vmid === vmid);
            return entry?.status === 'running' && (entry.uptime ?? 0) > 0 && (entry.mem ?? 0) > 0;
          },
          { timeoutMs: PATIENCE_MS, what: `the live figures of VM ${vmid} on every replica` },
        );
      const tasks = data<{ type: string; user: string }[]>(await api.send(`/nodes/${node}/tasks?vmid=${vmid}`));
      expect(tasks.map((task) => `${task.type} ${task.user}`).sort()).toEqual([
        'qmconfig root@pam',
        'qmcreate root@pam',
        'qmstart root@pam',
      ]);
      expect(await api.task(node, `/nodes/${node}/qemu/${vmid}/status/stop`)).toBe('OK');
      expect(await api.task(node, `/nodes/${node}/qemu/${vmid}`, 'DELETE')).toBe('OK');
      expect((await api.send(`/nodes/${node}/qemu/${vmid}/config`)).status).toBe(404);
    },
  );

  it('reads a guest of a node another replica holds from its own view, showing at once each change made through any replica', async () => {
    const [holder, second, third] = [through[0] ?? fail(), through[1] ?? fail(), through[2] ?? fail()];
    expect(await third.task('host1', '/nodes/host1/qemu', 'POST', { vmid: 160, name: 'read-anywhere', memory: 64 })).toBe('OK');
    for (let round = 0; round < 9; round++) {
      const writer = [holder, second, third][round % 3] ?? fail();
      const reader = round % 2 === 0 ? second : third;
      expect((await writer.send('/nodes/host1/qemu/160/config', 'PUT', { description: `round ${round}` })).status).toBe(200);
      expect(data<{ description?: string }>(await reader.send('/nodes/host1/qemu/160/config')).description).toBe(`round ${round}`);
    }
    expect(await second.task('host1', '/nodes/host1/qemu/160/status/start')).toBe('OK');
    expect(data<{ status: string }>(await third.send('/nodes/host1/qemu/160/status/current')).status).toBe('running');
    expect(await third.task('host1', '/nodes/host1/qemu/160/status/stop')).toBe('OK');
    expect(data<{ status: string }>(await second.send('/nodes/host1/qemu/160/status/current')).status).toBe('stopped');
    expect(data<{ vmid: number }[]>(await third.send('/nodes/host1/qemu')).map((guest) => guest.vmid)).toContain(160);
    // Served by the replica asked: the reads are in its access log, none in the holder's. Each
    // replica writes its access log in batches (at least every 500 ms): it is read until it shows them.
    const logged = async (index: number, path: string) =>
      (await readFile(join((replicas[index] ?? fail()).dataDir, 'access.log'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { method: string; path: string })
        .filter((line) => line.method === 'GET' && line.path === path).length;
    const reads = (index: number) => logged(index, '/api2/json/nodes/host1/qemu/160/config');
    await waitFor(async () => (await reads(1)) > 0 && (await reads(2)) > 0, {
      timeoutMs: PATIENCE_MS,
      what: 'the reads in the access logs of the replicas asked',
    });
    // A request of its own in the holder's log: everything the holder logged before it is there too.
    const versions = await logged(0, '/api2/json/version');
    expect((await holder.send('/version')).status).toBe(200);
    await waitFor(async () => (await logged(0, '/api2/json/version')) > versions, {
      timeoutMs: PATIENCE_MS,
      what: "the holder's access log",
    });
    expect(await reads(0)).toBe(0);
    expect(await holder.task('host1', '/nodes/host1/qemu/160', 'DELETE')).toBe('OK');
  });

  it('migrates a running VM live between host1 and host2, the two held by different replicas, asked through each replica', async () => {
    const [api0, api1, api2] = [through[0] ?? fail(), through[1] ?? fail(), through[2] ?? fail()];
    expect(await api1.task('host1', '/nodes/host1/qemu', 'POST', { vmid: 130, name: 'mover', memory: 64, scsi0: 'local:0.0625' })).toBe(
      'OK',
    );
    expect(await api1.task('host1', '/nodes/host1/qemu/130/status/start')).toBe('OK');
    // Asked through replica 1, run by replica 0 (host1's), whose commands for host2 go through replica 1.
    expect(await api1.task('host1', '/nodes/host1/qemu/130/migrate', 'POST', { target: 'host2', online: 1, 'with-local-disks': 1 })).toBe(
      'OK',
    );
    expect(data<{ status: string }>(await api0.send('/nodes/host2/qemu/130/status/current')).status).toBe('running');
    // Its QEMU on host2, as replica 1 (host2's) sees it live.
    expect(data<{ pid?: number }>(await api1.send('/nodes/host2/qemu/130/status/current')).pid).toEqual(expect.any(Number));
    expect(await readdir(join(root, 'host2', 'var/lib/vz/images/130'))).toEqual(['vm-130-disk-0.qcow2']);
    // Back, asked through replica 2 (which holds neither node), run by replica 1.
    expect(await api2.task('host2', '/nodes/host2/qemu/130/migrate', 'POST', { target: 'host1', online: 1, 'with-local-disks': 1 })).toBe(
      'OK',
    );
    expect(data<Record<string, unknown>>(await api1.send('/nodes/host1/qemu/130/status/current'))).toMatchObject({ status: 'running' });
    // And over again, asked through replica 0, which holds host1 and runs it.
    expect(await api0.task('host1', '/nodes/host1/qemu/130/migrate', 'POST', { target: 'host2', online: 1, 'with-local-disks': 1 })).toBe(
      'OK',
    );
    expect(data<Record<string, unknown>>(await api2.send('/nodes/host2/qemu/130/status/current'))).toMatchObject({ status: 'running' });
    expect(await api0.task('host2', '/nodes/host2/qemu/130/status/stop')).toBe('OK');
    expect(await api0.task('host2', '/nodes/host2/qemu/130', 'DELETE')).toBe('OK');
  });

  it('moves an HA VM of host1 to host2 when asked through replica 1 (/cluster/ha/resources/{sid}/migrate goes to the replica holding host1)', async () => {
    const api = through[1] ?? fail();
    expect(await api.task('host1', '/nodes/host1/qemu', 'POST', { vmid: 140, name: 'ha', memory: 64, scsi0: 'local:0.0625' })).toBe('OK');
    expect((await api.send('/cluster/ha/resources', 'POST', { sid: 'vm:140', state: 'stopped' })).status).toBe(200);
    expect(data(await api.send('/cluster/ha/resources/vm:140/migrate', 'POST', { node: 'host2' }))).toEqual({
      sid: 'vm:140',
      'requested-node': 'host2',
    });
    // On host2 once the move's task ended: the VM is no longer locked.
    await waitFor(
      async () => {
        const config = await api.send('/nodes/host2/qemu/140/config');
        return config.status === 200 && data<{ lock?: string }>(config).lock === undefined;
      },
      { timeoutMs: PATIENCE_MS, what: 'vm:140 on host2, unlocked' },
    );
    expect((await api.send('/cluster/ha/resources/vm:140', 'DELETE')).status).toBe(200);
    expect(await api.task('host2', '/nodes/host2/qemu/140', 'DELETE')).toBe('OK');
  });

  it("keeps the caller: the holding replica's access log names the user and the client's address", async () => {
    const holder = replicas[0] ?? fail();
    const log = (await readFile(join(holder.dataDir, 'access.log'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { user: string | null; client: string; path: string; method: string });
    expect(log).toContainEqual(
      expect.objectContaining({
        user: 'root@pam',
        client: expect.stringMatching(/127\.0\.0\.1$/),
        method: 'POST',
        path: '/api2/json/nodes/host1/qemu/100/status/start',
      }),
    );
  });

  it('refuses a request whose forwarding signature is not the cluster secret, and an agent command or HA move relayed without one, with 401', async () => {
    const forged = await (replicas[0] ?? fail()).api.send('/nodes/host1/status', {
      headers: {
        ...(through[0] ?? fail()).asRoot,
        'x-corral-forwarded': `${randomBytes(8).toString('hex')} ${Date.now()} 10.0.0.1 c2lnbmF0dXJl`,
      },
    });
    expect(forged.status).toBe(401);
    expect(forged.reason).toBe('invalid forwarding signature: only control-plane replicas forward requests');
    // The relay of agent commands takes only signed requests, even from a logged-in root.
    const relayed = await (replicas[0] ?? fail()).api.send('/../../internal/v1/agent-requests', {
      method: 'POST',
      headers: { ...(through[0] ?? fail()).asRoot, 'content-type': 'application/json' },
      body: JSON.stringify({ node: 'host1', command: 'node.apt.update', params: {}, timeoutMs: 1000 }),
    });
    expect([relayed.status, relayed.reason]).toEqual([401, 'only control-plane replicas relay agent commands']);
    // So does the relay of the HA manager's moves.
    const moved = await (replicas[0] ?? fail()).api.send('/../../internal/v1/ha-moves', {
      method: 'POST',
      headers: { ...(through[0] ?? fail()).asRoot, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'vm', vmid: 100, target: 'host2', how: 'migrate' }),
    });
    expect([moved.status, moved.reason]).toEqual([401, 'only control-plane replicas relay HA moves']);
  });

  it.each([
    [0, 'host2'],
    [1, 'host1'],
    [2, 'host1'],
  ] as const)("uploads an ISO through replica %i to %s's storage, streamed on to the replica holding the node", async (index, node) => {
    const iso = randomBytes(2 * 1024 * 1024 + 3);
    const sha256 = createHash('sha256').update(iso).digest('hex');
    const name = `via-replica${index}.iso`;
    const { body, type } = uploadForm({ content: 'iso', checksum: sha256, 'checksum-algorithm': 'sha256' }, name, iso);
    const api = through[index] ?? fail();
    const upid = data<string>(
      await (replicas[index] ?? fail()).api.send(`/nodes/${node}/storage/local/upload`, {
        method: 'POST',
        headers: { ...api.asRoot, 'content-type': type },
        body,
      }),
    );
    expect(await api.taskEnd(node, upid)).toBe('OK');
    expect(await readdir(join(root, node, 'var/lib/vz/template/iso'))).toContain(name);
    expect(await readFile(join(root, node, 'var/lib/vz/template/iso', name))).toEqual(iso);
  });

  it.each([
    [0, 'host2', 220],
    [1, 'host1', 120],
    [2, 'host1', 121],
  ] as const)(
    "opens through replica %i the VNC console of a VM of %s: vncproxy and vncwebsocket forwarded, QEMU's RFB version comes back",
    async (index, node, vmid) => {
      const api = through[index] ?? fail();
      expect(await api.task(node, `/nodes/${node}/qemu`, 'POST', { vmid, name: 'vnc', memory: 64 })).toBe('OK');
      expect(await api.task(node, `/nodes/${node}/qemu/${vmid}/status/start`)).toBe('OK');
      const vnc = data<{ ticket: string; cert: string; port: number; upid: string }>(
        await api.send(`/nodes/${node}/qemu/${vmid}/vncproxy`, 'POST', { websocket: 1 }),
      );
      const { socket, version } = await openVncConsole((replicas[index] ?? fail()).port, `/nodes/${node}/qemu/${vmid}`, vnc, api.asRoot);
      expect(version).toBe('RFB 003.008\n');
      socket.close(1000);
      expect(await api.taskEnd(node, vnc.upid)).toBe('OK');
      expect(await api.task(node, `/nodes/${node}/qemu/${vmid}/status/stop`)).toBe('OK');
      expect(await api.task(node, `/nodes/${node}/qemu/${vmid}`, 'DELETE')).toBe('OK');
    },
  );

  it("streams every replica's events on every replica: each listener printed the making, runs and end of the VMs made through the others", async () => {
    const expected = [100, 110, 200, 210].flatMap((vmid) =>
      ['vm-create', 'vm-start', 'vm-stop', 'vm-delete'].map((event) => `${event} ${vmid}`),
    );
    for (const listener of listeners) {
      const seen = () =>
        listener.stdout
          .split('\n')
          .map((line) => / (vm-[a-z]+) node=\S+ vmid=(\d+) /.exec(line))
          .flatMap((match) => (match ? [`${match[1]} ${match[2]}`] : []));
      await waitFor(() => expected.every((line) => seen().includes(line)), {
        timeoutMs: PATIENCE_MS,
        what: `every VM's events in ${listener.stdout}`,
      });
      // Each once: a replica's stream repeats nothing.
      expect(new Set(seen()).size).toBe(seen().length);
    }
  });

  it(
    "ends a task with its real result through another replica when the replica running it is killed with SIGKILL while the node's agent works on it",
    async () => {
      const api = through[2] ?? fail();
      expect(await api.task('host1', '/nodes/host1/qemu', 'POST', { vmid: 150, name: 'orphan', memory: 64 })).toBe('OK');
      expect(await api.task('host1', '/nodes/host1/qemu/150/status/start')).toBe('OK');
      // A VM without an operating system ignores the power button: the shutdown waits out its timeout on the agent, then stops it.
      const upid = data<string>(await api.send('/nodes/host1/qemu/150/status/shutdown', 'POST', { timeout: 10, forceStop: 1 }));
      const host1 = agents[0] ?? fail();
      await waitFor(() => `${host1.stdout}${host1.stderr}`.includes(`"command":"guest.shutdown","upid":"${upid}"`), {
        timeoutMs: PATIENCE_MS,
        what: "the shutdown under way on host1's agent",
      });
      await (replicas[0] ?? fail()).stop('SIGKILL');
      // host1's agent moves to another replica, which stores the shutdown's answer; the task ends with it once replica 0 is taken for gone.
      expect(await api.taskEnd('host1', upid)).toBe('OK');
      expect(data<{ status: string }>(await api.send('/nodes/host1/qemu/150/status/current')).status).toBe('stopped');
      replicas[0] = await (replicas[0] ?? fail()).restart();
      expect(await api.task('host1', '/nodes/host1/qemu/150', 'DELETE')).toBe('OK');
    },
    4 * PATIENCE_MS,
  );
});

function fail(): never {
  throw new Error('missing: the setup did not finish');
}
