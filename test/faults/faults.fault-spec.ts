import { AgentProcess, testPostgresProxy, waitFor, type ControlPlaneProcess, type TcpProxy } from '@corral/testing';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';

const ROOT_PASSWORD = 'faults-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 90_000;
/** The guests the workload drives, each through create, start, backup, stop and delete, all at once. */
const GUESTS_PER_ROUND = 4;

/** A workload operation whose task ended OK: the event it must have left. */
type Done = { readonly vmid: number; readonly event: string };

/**
 * The fault suite: a control plane and an agent on the sim driver, on a database of its own that the
 * control plane reaches through a proxy (cut and restored as a restart of PostgreSQL cuts and refuses
 * every connection), under a workload of creates, starts, backups, stops and deletes running at once; each fault
 * is injected in the middle of a round, and once the round is over the cluster must settle: every
 * task ended, no guest locked, every guest's state the agent's, the event stream whole and holding
 * an event for every change, the API answering.
 */
describe('faults under a workload', () => {
  let root: string;
  let proxy: TcpProxy;
  /** The control plane's database URL, through the proxy. */
  let url: string;
  let db: pg.Client | null = null;
  let cp: ControlPlaneProcess | null = null;
  let agent: AgentProcess | null = null;
  let agentConfig: string;
  let port = 0;
  let nextVmid = 100;
  const done: Done[] = [];

  const api = () => guestApi(current(cp), ROOT_PASSWORD, PATIENCE_MS);
  const send = (path: string, method?: string, form?: Record<string, string | number>) => api().send(path, method, form);

  async function startControlPlane(): Promise<void> {
    // The same port each time, so that the agent finds it again.
    cp = await startOnTestDatabase({
      databaseUrl: url,
      dataDir: join(root, 'cp'),
      env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD, CORRAL_PORT: String(port) },
    });
    port = cp.port;
  }

  function startAgent(): void {
    // Slower than real time would be: a fault lands while operations are under way.
    agent = AgentProcess.agent(agentConfig, { CORRAL_DRIVER: 'sim', CORRAL_SIM_SPEED: '0.2' });
  }

  async function killControlPlane(): Promise<void> {
    await current(cp).stop('SIGKILL');
    cp = null;
  }

  async function killAgent(): Promise<void> {
    await agent?.kill();
    agent = null;
  }

  /** The guests the agent itself holds: the sim driver's state file, by vmid. */
  async function agentView(): Promise<Map<number, string>> {
    const file = join(root, 'host1/var/lib/corral/agent/sim-guests.json');
    const text = await readFile(file, 'utf8').catch(() => '{"guests":[]}');
    const state = JSON.parse(text) as { guests: { vmid: number; status: string }[] };
    return new Map(state.guests.map((guest) => [guest.vmid, guest.status === 'stopped' ? 'stopped' : 'running']));
  }

  /** Runs an action and waits for its task, through restarts; its exit status, or why there is none. */
  async function attempt(path: string, method = 'POST', form?: Record<string, string | number>): Promise<string> {
    try {
      const upid = data<string>(await send(path, method, form));
      return await waitForTask(upid);
    } catch (error) {
      return `failed: ${(error as Error).message}`;
    }
  }

  async function waitForTask(upid: string): Promise<string> {
    let status = 'running';
    await waitFor(
      async () => {
        try {
          const task = data<{ status: string; exitstatus?: string }>(
            await send(`/nodes/host1/tasks/${encodeURIComponent(upid)}/status?wait=2`),
          );
          status = task.status === 'stopped' ? (task.exitstatus ?? '') : 'running';
        } catch {
          // The control plane is away: asked again once it is back.
        }
        return status !== 'running';
      },
      { timeoutMs: PATIENCE_MS, what: `task ${upid}` },
    );
    return status;
  }

  /** One guest's life: each step whose task ended OK is recorded with the event it must have left. */
  async function lifeOf(vmid: number): Promise<void> {
    const steps: [string, string, Record<string, string | number>?][] = [
      ['/nodes/host1/qemu', 'vm-create', { vmid, name: `g${vmid}`, memory: 64, scsi0: 'local:0.0625' }],
      [`/nodes/host1/qemu/${vmid}/status/start`, 'vm-start'],
      ['/nodes/host1/vzdump', 'backup-end', { vmid: String(vmid), storage: 'local', mode: 'snapshot' }],
      [`/nodes/host1/qemu/${vmid}/status/stop`, 'vm-stop'],
    ];
    const ok = new Set<string>();
    for (const [path, event, form] of steps) {
      // A stop changes nothing (no event) unless the start did.
      if (event === 'vm-stop' && !ok.has('vm-start')) continue;
      if ((await attempt(path, 'POST', form)) === 'OK') ok.add(event);
    }
    if ((await attempt(`/nodes/host1/qemu/${vmid}`, 'DELETE')) === 'OK') ok.add('vm-delete');
    for (const event of ok) done.push({ vmid, event });
  }

  /** A round of the workload with `fault` injected once the round is under way. */
  async function round(fault: () => Promise<void>): Promise<void> {
    const vmids = Array.from({ length: GUESTS_PER_ROUND }, () => nextVmid++);
    const lives = Promise.all(vmids.map((vmid) => lifeOf(vmid)));
    // Under way: the first guest's create has been asked for.
    await waitFor(async () => (await current(db).query('SELECT 1 FROM "tasks" WHERE "id" = $1', [String(vmids[0])])).rowCount === 1, {
      timeoutMs: PATIENCE_MS,
      what: 'the workload under way',
    });
    await fault();
    await lives;
    await expectSettled(vmids);
  }

  /** What is wrong with the cluster now, as to the round's guests `vmids`; empty once it has settled. */
  async function problems(vmids: readonly number[]): Promise<string[]> {
    const found: string[] = [];
    if ((await send('/version')).status !== 200) return ['the API does not answer /version'];
    const active = data<{ upid: string }[]>(await send('/nodes/host1/tasks?source=active&limit=1000'));
    for (const task of active) {
      const log = data<{ t: string }[]>(await send(`/nodes/host1/tasks/${encodeURIComponent(task.upid)}/log?limit=0`));
      found.push(`task ${task.upid} still running: ${log.map((line) => line.t).join(' | ')}`);
    }
    const all = data<{ vmid: number }[]>(await send('/cluster/resources?type=vm'));
    const guests = all.filter((guest) => vmids.includes(guest.vmid));
    const view = await agentView();
    for (const guest of guests) {
      const config = data<Record<string, unknown>>(await send(`/nodes/host1/qemu/${guest.vmid}/config`));
      if (config['lock'] !== undefined) found.push(`guest ${guest.vmid} locked (${String(config['lock'])})`);
      const status = data<{ status: string }>(await send(`/nodes/host1/qemu/${guest.vmid}/status/current`)).status;
      if (status !== (view.get(guest.vmid) ?? 'absent'))
        found.push(`guest ${guest.vmid} is ${status}, its agent has it ${view.get(guest.vmid) ?? 'absent'}`);
    }
    for (const vmid of view.keys())
      if (vmids.includes(vmid) && !guests.some((guest) => guest.vmid === vmid))
        found.push(`the agent holds guest ${vmid}, the API does not know it`);
    found.push(
      ...(await eventProblems(
        vmids,
        guests.map((guest) => ({ vmid: guest.vmid, status: view.get(guest.vmid) ?? 'absent' })),
      )),
    );
    return found;
  }

  /** The event stream from since=0, paged as a client reads it: every committed event once, in order, and one for every change. */
  async function eventProblems(vmids: readonly number[], guests: { vmid: number; status: string }[]): Promise<string[]> {
    const found: string[] = [];
    const read: { seq: number; event: string; vmid?: number; details?: { status?: string } }[] = [];
    for (let since = 0; ;) {
      const page = data<typeof read>(await send(`/cluster/events?since=${since}&limit=1000`));
      if (page.length === 0) break;
      read.push(...page);
      since = page.at(-1)?.seq ?? since;
    }
    const table = (await current(db).query<{ seq: string }>('SELECT "seq" FROM "events" ORDER BY "seq"')).rows.map((row) =>
      Number(row.seq),
    );
    const seqs = read.map((event) => event.seq);
    if (seqs.join() !== table.join()) found.push(`the stream from since=0 has seqs ${seqs.join()}, the table ${table.join()}`);
    for (const { vmid, event } of done.filter((each) => vmids.includes(each.vmid)))
      if (!read.some((each) => each.vmid === vmid && each.event === event && (event !== 'backup-end' || each.details?.status === 'ok')))
        found.push(`no ${event} event for guest ${vmid}`);
    // The last power event of each guest says what state it is in.
    for (const { vmid, status } of guests) {
      const last =
        read.filter((each) => each.vmid === vmid && (each.event === 'vm-start' || each.event === 'vm-stop')).at(-1)?.event ?? 'vm-stop';
      if ((last === 'vm-start') !== (status === 'running')) found.push(`guest ${vmid} is ${status}, its last power event is ${last}`);
    }
    return found;
  }

  async function expectSettled(vmids: readonly number[]): Promise<void> {
    let last: string[] = [];
    try {
      await waitFor(
        async () => {
          last = await problems(vmids).catch((error: unknown) => [`cannot check: ${(error as Error).message}`]);
          return last.length === 0;
        },
        { timeoutMs: PATIENCE_MS, intervalMs: 1000, what: 'the cluster to settle' },
      );
    } catch {
      // Shown as what is still wrong.
    }
    expect(last).toEqual([]);
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-faults-'));
    // mkdtemp makes it 0700: the embedded server's own user must be able to traverse it.
    await chmod(root, 0o755);
    const direct = await testDatabaseUrl();
    const reach = await testPostgresProxy();
    proxy = reach.proxy;
    url = reach.through(direct);
    // The test's own view of the database, not through the proxy.
    db = new pg.Client({ connectionString: direct });
    await db.connect();
    await startControlPlane();
    agentConfig = await api().joinedAgentConfig(root, 'host1');
    startAgent();
    await waitFor(async () => data<{ status: string }[]>(await send('/nodes')).some((node) => node.status === 'online'), {
      timeoutMs: PATIENCE_MS,
      what: 'host1 online',
    });
  }, 3 * PATIENCE_MS);

  afterAll(async () => {
    await agent?.kill();
    await cp?.stop('SIGKILL');
    await db?.end();
    await proxy?.cut();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('settles after kill -9 of the control plane and its restart', async () => {
    await round(async () => {
      await killControlPlane();
      await startControlPlane();
    });
  });

  it('settles after kill -9 of the agent and its restart', async () => {
    await round(async () => {
      await killAgent();
      startAgent();
    });
  });

  it('settles after kill -9 of both and their restart', async () => {
    await round(async () => {
      await Promise.all([killControlPlane(), killAgent()]);
      await startControlPlane();
      startAgent();
    });
  });

  it('settles after PostgreSQL goes away and comes back, the control plane running on', async () => {
    await round(async () => {
      await proxy.cut();
      // Away until the control plane has noticed: its API says so.
      await waitFor(async () => (await send('/cluster/tasks')).status === 503, { timeoutMs: PATIENCE_MS, what: 'a 503 from the API' });
      await proxy.restore();
    });
  });
});

function current<T>(value: T | null): T {
  if (value === null) throw new Error('not running');
  return value;
}
