import { AgentProcess, waitFor, type ControlPlaneProcess } from '@corral/testing';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';

const ROOT_PASSWORD = 'agent-crash-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;

/**
 * A TCP relay between the agent and the control plane (TLS passes through it untouched). While it
 * holds, what the agent sends is dropped, as by a network that stopped delivering: the agent's
 * frames then reach the control plane only if the agent sends them again.
 */
class Relay {
  holding = false;
  private readonly sockets = new Set<net.Socket>();

  private constructor(readonly server: net.Server) {}

  static async start(targetPort: number): Promise<Relay> {
    const server = net.createServer();
    const relay = new Relay(server);
    server.on('connection', (agent) => {
      const controlPlane = net.connect(targetPort, '127.0.0.1');
      for (const socket of [agent, controlPlane]) {
        relay.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => relay.sockets.delete(socket));
      }
      agent.on('data', (chunk) => relay.holding || controlPlane.write(chunk));
      controlPlane.pipe(agent);
      agent.on('close', () => controlPlane.destroy());
      controlPlane.on('close', () => agent.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Cuts every connection and lets the next ones through. */
  reset(): void {
    for (const socket of this.sockets) socket.destroy();
    this.holding = false;
  }

  close(): Promise<void> {
    this.reset();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface GuestEvent {
  event: string;
  details: Record<string, unknown>;
}

// No start or stop is lost (docs/events.md): an agent killed with SIGKILL before the control plane
// saw its event sends it again from its disk after the restart, recorded once under the session of
// the process that saw it; a change made while the agent was down is recorded, reconciled, once it is back.
describe('an agent killed with unacknowledged events', () => {
  let cp: ControlPlaneProcess | undefined;
  let relay: Relay | undefined;
  const agents: AgentProcess[] = [];
  let db: pg.Client;
  let root: string;
  let config: string;
  let api: ReturnType<typeof guestApi>;

  const hostRoot = () => join(root, 'host1');
  const startAgent = async () => {
    const agent = AgentProcess.agent(config, { CORRAL_DRIVER: 'sim', CORRAL_SIM_SPEED: '0' });
    agents.push(agent);
    await waitFor(() => agent.stderr.includes('"msg":"connected"'), {
      timeoutMs: PATIENCE_MS,
      what: `the agent to connect: ${agent.stderr}`,
    });
    return agent;
  };
  const sessionOf = (agent: AgentProcess) => /"msg":"agent starting".*?"session":"([^"]+)"/.exec(agent.stderr)?.[1];
  /** The guest's starts and stops, in order. */
  const runEventsOf = async (vmid: number) =>
    (
      await db.query(`SELECT "event", "details" FROM "events" WHERE "vmid" = $1 AND "event" IN ('vm-start', 'vm-stop') ORDER BY "seq"`, [
        vmid,
      ])
    ).rows as GuestEvent[];
  const statusOf = async (vmid: number) => data<{ status: string }>(await api.send(`/nodes/host1/qemu/${vmid}/status/current`)).status;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-agent-crash-'));
    await mkdir(join(root, 'cp'));
    const databaseUrl = await testDatabaseUrl();
    cp = await startOnTestDatabase({ databaseUrl, dataDir: join(root, 'cp'), env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
    relay = await Relay.start(cp.port);
    config = await api.joinedAgentConfig(root, 'host1', `https://127.0.0.1:${relay.port}`);
    await startAgent();
    expect(await api.task('host1', '/nodes/host1/qemu', 'POST', { vmid: 100, name: 'vm1', memory: 64, scsi0: 'local:0.0625' })).toBe('OK');
  }, 3 * PATIENCE_MS);

  afterAll(async () => {
    for (const agent of agents) await agent.kill();
    await relay?.close();
    await db?.end();
    await cp?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('sends a start the control plane never received again after a SIGKILL: recorded once, under the session that saw it', async () => {
    const first = agents[0] as AgentProcess;
    if (relay) relay.holding = true;
    // The start reaches the agent; its answer, event and report do not reach the control plane.
    const started = await api.send('/nodes/host1/qemu/100/status/start', 'POST');
    expect(started.status).toBe(200);
    const stored = join(hostRoot(), 'var/lib/corral/agent/outbox.json');
    await waitFor(async () => (await readFile(stored, 'utf8').catch(() => '')).includes('"event":"vm-start"'), {
      timeoutMs: PATIENCE_MS,
      what: 'the vm-start event on the agent’s disk',
    });
    expect((await first.kill()).signal).toBe('SIGKILL');
    relay?.reset();
    expect(await runEventsOf(100)).toEqual([]);

    const second = await startAgent();
    await waitFor(async () => (await runEventsOf(100)).length > 0, { timeoutMs: PATIENCE_MS, what: 'the vm-start event' });
    // Everything the new process had to send is acknowledged (its stored outbox is empty): nothing more comes.
    await waitFor(async () => (await readFile(stored, 'utf8')).includes('"frames":[]'), {
      timeoutMs: PATIENCE_MS,
      what: 'the outbox acknowledged',
    });
    expect(await runEventsOf(100)).toEqual([{ event: 'vm-start', details: { session: sessionOf(first), seq: expect.any(Number) } }]);
    expect(sessionOf(second)).not.toBe(sessionOf(first));
    expect(await statusOf(100)).toBe('running');
  });

  it('records a stop made while the agent was down once it is back, marked reconciled', async () => {
    await (agents.at(-1) as AgentProcess).kill();
    // The host's guest stopped meanwhile (the simulator's state, as a stopped process would be gone).
    const simFile = join(hostRoot(), 'var/lib/corral/agent/sim-guests.json');
    const sim = JSON.parse(await readFile(simFile, 'utf8')) as {
      guests: { vmid: number; status: string; pid?: number; startedAt?: number }[];
    };
    for (const guest of sim.guests)
      if (guest.vmid === 100) Object.assign(guest, { status: 'stopped', pid: undefined, startedAt: undefined });
    await writeFile(simFile, JSON.stringify(sim));

    await startAgent();
    await waitFor(async () => (await statusOf(100)) === 'stopped', { timeoutMs: PATIENCE_MS, what: 'vm 100 stopped' });
    expect((await runEventsOf(100)).slice(1)).toEqual([{ event: 'vm-stop', details: { reconciled: 1 } }]);
  });
});
