import type { GuestRuntime } from '@corral/protocol';
import type { FakeAgent } from '@corral/testing';
import { pino } from 'pino';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { AgentReports } from './agent-reports.js';

const running = (vmid: number, type: GuestRuntime['type'] = 'qemu'): GuestRuntime => ({
  vmid,
  type,
  status: 'running',
  pid: 4000 + vmid,
  uptime: 5,
  cpu: 0.01,
  mem: 1024,
});
const timestamp = '2026-05-04T09:30:41.000Z';

interface EventOf {
  event: string;
  node: string;
  details: Record<string, unknown>;
}

describe("the control plane's record of each guest's run state, kept with the agents' reports and events", () => {
  let t: TestApp;
  const agents: FakeAgent[] = [];
  const warnings: string[] = [];

  /** A guest row, as the guest view knows it. */
  const guest = async (vmid: number, node: string, type = 'qemu', status = 'stopped') => {
    await t.dataSource.query(`INSERT INTO "guests" ("vmid", "type", "node", "config", "status") VALUES ($1, $2, $3, '{}', $4)`, [
      vmid,
      type,
      node,
      status,
    ]);
    await t.app.get(GuestView).reload(vmid);
  };
  const eventsOf = async (vmid: number) =>
    (await t.dataSource.query('SELECT "event", "node", "details" FROM "events" WHERE "vmid" = $1 ORDER BY "seq"', [vmid])) as EventOf[];
  const statusOf = async (vmid: number) =>
    ((await t.dataSource.query('SELECT "status" FROM "guests" WHERE "vmid" = $1', [vmid])) as { status: string }[])[0]?.status;
  const credentials = new Map<string, string>();
  /** An agent process of the node (`session`) online; the node joined at its first. */
  const online = async (node: string, session: string) => {
    const credential = credentials.get(node) ?? (await joinNode(t, node));
    credentials.set(node, credential);
    const agent = await onlineAgent(t, node, credential, { hello: { session } });
    agents.push(agent);
    return agent;
  };
  /** Sends numbered frames and waits until the control plane acknowledged the last. */
  const handled = async (agent: FakeAgent, upTo: number) => {
    for (;;) if ((await agent.next('ack')).upTo >= upTo) return;
  };

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule], logger: pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) }) });
  });
  afterAll(async () => {
    for (const agent of agents) agent.close();
    await t.close();
  });

  it('records a start or stop that a report shows and no event told, marked reconciled, once, with the guest type', async () => {
    await guest(300, 'rec1');
    await guest(301, 'rec1', 'lxc', 'running');
    const agent = await online('rec1', 'rec1-a');
    agent.send({ type: 'report', seq: 1, payload: { kind: 'runtime', guests: [running(300)] } });
    agent.send({ type: 'report', seq: 2, payload: { kind: 'runtime', guests: [running(300)] } });
    await handled(agent, 2);
    expect(await statusOf(300)).toBe('running');
    expect(await statusOf(301)).toBe('stopped');
    expect(await eventsOf(300)).toEqual([{ event: 'vm-start', node: 'rec1', details: { reconciled: 1 } }]);
    expect(await eventsOf(301)).toEqual([{ event: 'ct-stop', node: 'rec1', details: { reconciled: 1 } }]);
  });

  it('records nothing more for a change whose event came before the report', async () => {
    await guest(310, 'rec2');
    const agent = await online('rec2', 'rec2-a');
    agent.send({ type: 'event', seq: 1, event: 'vm-start', vmid: 310, timestamp });
    agent.send({ type: 'report', seq: 2, payload: { kind: 'runtime', guests: [running(310)] } });
    await handled(agent, 2);
    expect(await eventsOf(310)).toEqual([{ event: 'vm-start', node: 'rec2', details: { session: 'rec2-a', seq: 1 } }]);
    expect(await statusOf(310)).toBe('running');
  });

  it('records an event a new agent process sends again once, under its origin, and one it never sent', async () => {
    await guest(320, 'rec3');
    await guest(321, 'rec3');
    const first = await online('rec3', 'rec3-a');
    first.send({ type: 'event', seq: 1, event: 'vm-start', vmid: 320, timestamp });
    await handled(first, 1);
    first.close();
    // The next process: its predecessor's events first, in its own session, each with its origin.
    const second = await online('rec3', 'rec3-b');
    second.send({ type: 'event', seq: 1, event: 'vm-start', vmid: 320, timestamp, origin: { session: 'rec3-a', seq: 1 } });
    second.send({ type: 'event', seq: 2, event: 'vm-start', vmid: 321, timestamp, origin: { session: 'rec3-a', seq: 2 } });
    await handled(second, 2);
    expect(await eventsOf(320)).toEqual([{ event: 'vm-start', node: 'rec3', details: { session: 'rec3-a', seq: 1 } }]);
    expect(await eventsOf(321)).toEqual([{ event: 'vm-start', node: 'rec3', details: { session: 'rec3-a', seq: 2 } }]);
  });

  it("refuses the run state of another node's guest with a warning: its row, run state and events stay as they are", async () => {
    await guest(330, 'rec4-host');
    const intruder = await online('rec4', 'rec4-a');
    intruder.send({ type: 'report', seq: 1, payload: { kind: 'runtime', guests: [running(330)] } });
    intruder.send({ type: 'event', seq: 2, event: 'vm-start', vmid: 330, timestamp });
    await handled(intruder, 2);
    // A later reload of the row (another replica's change) finds no run state of the intruder's either.
    await t.app.get(GuestView).reload(330);
    expect(await statusOf(330)).toBe('stopped');
    expect(t.app.get(GuestView).get(330)?.runtime).toBeUndefined();
    expect(await eventsOf(330)).toEqual([]);
    expect(warnings.join('')).toMatch(/"vmid":330,"host":"rec4-host".*refused the run state of a guest its node does not host/);
  });

  it('records an event that two replicas handle at once (its agent moved between them before its ack) once', async () => {
    await guest(340, 'rec5');
    const reports = t.app.get(AgentReports);
    const frame = { type: 'event' as const, seq: 1, event: 'vm-start' as const, vmid: 340, timestamp };
    await Promise.all(Array.from({ length: 4 }, () => reports.handle('rec5', 'rec5-a', frame)));
    expect(await eventsOf(340)).toEqual([{ event: 'vm-start', node: 'rec5', details: { session: 'rec5-a', seq: 1 } }]);
  });
});
