import { AgentProcess, waitFor, type ControlPlaneProcess } from '@corral/testing';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';

const ROOT_PASSWORD = 'events-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;

// Events: `corral events listen --event-type vm-start` (the built CLI, as a process)
// prints the start of a VM that another client starts; it follows the stream across a restart of
// the control plane without missing or repeating an event.
describe('corral events listen', () => {
  let cp: ControlPlaneProcess | undefined;
  let agent: AgentProcess | undefined;
  const listeners: AgentProcess[] = [];
  let db: pg.Client;
  let root: string;
  let databaseUrl: string;
  let api: ReturnType<typeof guestApi>;
  /** The listeners' environment: the control plane pinned by fingerprint, and a token that may only audit guests. */
  let asListener: Record<string, string>;

  const startControlPlane = async (port: number) => {
    cp = await startOnTestDatabase({
      databaseUrl,
      dataDir: join(root, 'cp'),
      env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD, CORRAL_PORT: String(port) },
    });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
  };
  /** A one-shot `corral` as root: its stdout. */
  const corral = async (...args: string[]): Promise<string> => {
    const run = AgentProcess.cli(args, {
      CORRAL_URL: `https://127.0.0.1:${cp?.port ?? 0}`,
      CORRAL_FINGERPRINT: cp?.fingerprint ?? '',
      CORRAL_USER: 'root@pam',
      CORRAL_PASSWORD: ROOT_PASSWORD,
    });
    const exit = await run.waitForExit(PATIENCE_MS);
    if (exit.code !== 0) throw new Error(`corral ${args.join(' ')} exited with ${exit.code}: ${run.stderr}`);
    return run.stdout;
  };
  /** `corral events listen ...` running, once it says where its stream starts. */
  const listen = async (...args: string[]): Promise<AgentProcess> => {
    const listener = AgentProcess.cli(['events', 'listen', ...args], asListener);
    listeners.push(listener);
    await waitFor(() => listener.stderr.includes('following the events after seq'), {
      timeoutMs: PATIENCE_MS,
      what: `the listener to connect: ${listener.stderr}`,
    });
    return listener;
  };
  const lines = (listener: AgentProcess) => listener.stdout.split('\n').filter(Boolean);
  const online = () =>
    waitFor(async () => data<{ status: string }[]>(await api.send('/nodes')).some((node) => node.status === 'online'), {
      timeoutMs: PATIENCE_MS,
      what: 'host1 online',
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-events-'));
    await mkdir(join(root, 'cp'));
    databaseUrl = await testDatabaseUrl();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await startControlPlane(0);
    // The control plane comes back on the same port, so that the agent finds it again.
    const config = await api.joinedAgentConfig(root, 'host1');
    agent = AgentProcess.agent(config, { CORRAL_DRIVER: 'sim', CORRAL_SIM_SPEED: '0' });
    await online();
    // docs/events.md: a notification service's token, privilege-separated, that may audit guests and nothing else.
    const { value } = JSON.parse(await corral('token', 'create', 'root@pam', 'listener', '--privsep', '1')) as { value: string };
    await corral('acl', 'set', '/vms', '--role', 'PVEAuditor', '--token', 'root@pam!listener');
    asListener = {
      CORRAL_URL: `https://127.0.0.1:${cp?.port ?? 0}`,
      CORRAL_FINGERPRINT: cp?.fingerprint ?? '',
      CORRAL_TOKEN: `root@pam!listener=${value}`,
    };
  }, 3 * PATIENCE_MS);

  afterAll(async () => {
    for (const listener of listeners) await listener.kill();
    await agent?.kill();
    await cp?.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  it('--event-type vm-start prints the start of a VM that another client starts, and nothing else', async () => {
    const starts = await listen('--event-type', 'vm-start');
    const json = await listen('--event-type', 'vm-start,vm-stop', '--json');
    expect(await api.task('host1', '/nodes/host1/qemu', 'POST', { vmid: 100, name: 'vm1', memory: 64, scsi0: 'local:0.0625' })).toBe('OK');
    expect(await api.task('host1', '/nodes/host1/qemu/100/status/start')).toBe('OK');

    await waitFor(() => lines(starts).length > 0, { timeoutMs: PATIENCE_MS, what: `the vm-start line: ${starts.stderr}` });
    expect(lines(starts)).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z vm-start node=host1 vmid=100 seq=\d+$/)]);
    await waitFor(() => lines(json).length > 0, { timeoutMs: PATIENCE_MS, what: 'the JSON line' });
    expect(lines(json).map((line) => JSON.parse(line) as unknown)).toEqual([
      {
        seq: expect.any(Number),
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        event: 'vm-start',
        node: 'host1',
        vmid: 100,
        timestamp: expect.any(String),
        details: expect.any(Object),
      },
    ]);
    // Both go on following.
    expect([starts.exitStatus, json.exitStatus]).toEqual([null, null]);
  });

  it(
    'follows the stream across a restart of the control plane, printing what committed meanwhile once',
    async () => {
      const listener = await listen('--event-type', 'vm-start,vm-stop', '--json');
      const port = cp?.port ?? 0;
      expect(await cp?.stop()).toBe(0);
      await waitFor(() => listener.stderr.includes('the control plane is shutting down; reconnecting'), {
        timeoutMs: PATIENCE_MS,
        what: `the listener to notice: ${listener.stderr}`,
      });
      // An event that commits while this listener cannot reach the control plane (as another replica would write it).
      await db.query(`INSERT INTO "events" ("event", "node", "vmid", "timestamp") VALUES ('vm-stop', 'host1', 999, now())`);
      await startControlPlane(port);
      // Until its agent is back with this control plane, the node answers 503.
      let upid = '';
      await waitFor(
        async () => {
          const res = await api.send('/nodes/host1/qemu/100/status/stop', 'POST');
          if (res.status === 503) return false;
          upid = data<string>(res);
          return true;
        },
        { timeoutMs: PATIENCE_MS, what: "host1's agent back" },
      );
      expect(await api.taskEnd('host1', upid)).toBe('OK');

      await waitFor(() => lines(listener).length >= 2, { timeoutMs: PATIENCE_MS, what: `both stops: ${listener.stderr}` });
      const printed = lines(listener).map((line) => JSON.parse(line) as { seq: number; event: string; vmid: number });
      expect(printed.map((event) => `${event.event} ${event.vmid}`)).toEqual(['vm-stop 999', 'vm-stop 100']);
      expect(printed[1]?.seq).toBeGreaterThan(printed[0]?.seq ?? Infinity);
      expect(listener.exitStatus).toBeNull();
    },
    3 * PATIENCE_MS,
  );

  it('exits 1 saying so when the events after its --since were deleted', async () => {
    await db.query(`UPDATE "event_retention" SET "pruned_through" = 2 WHERE "id" = 1`);
    const gone = AgentProcess.cli(['events', 'listen', '--since', '1'], asListener);
    listeners.push(gone);
    expect(await gone.waitForExit(PATIENCE_MS)).toEqual({ code: 1, signal: null });
    expect(gone.stderr).toMatch(/^corral: 410 events after 1 were deleted \(retention\): the oldest available is \d+/);
  });
});
