import {
  AgentProcess,
  buildBusyboxTemplate,
  waitFor,
  WebhookReceiverProcess,
  type ControlPlaneProcess,
  type ReceivedRequest,
} from '@corral/testing';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { agentSettled, data, guestApi, type Form } from '../support/guest-api.js';

const run = promisify(execFile);
const ROOT_PASSWORD = 'event-delivery-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;
/** How long an agent's connection lasts before requests go to it (agentSettled): past a liveness round of the hub (2 s). */
const SETTLED_MS = 2500;
const SIGNING_KEY = 'event-delivery-e2e-signing-key';
const HOOK = '/cluster/notifications/endpoints/webhook/all';

/** An event as the `events` table holds it. */
interface RecordedEvent {
  readonly seq: number;
  readonly id: string;
  readonly event: string;
  readonly node: string;
  readonly vmid: number | null;
  readonly timestamp: Date;
}

/** What a receiver can tell of a request; an expected one is signed, POSTed as JSON to /hook. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | undefined;
  /** Whether X-Corral-Signature is the HMAC-SHA256 of `<X-Corral-Timestamp>.<raw body>`, signed within 5 minutes (docs/webhooks.md). */
  readonly signed: boolean;
  readonly id: string | undefined;
  readonly seq: number;
  readonly body: { readonly event: string; readonly vmid?: number; readonly timestamp: string; readonly node: string };
}

const header = (request: ReceivedRequest, name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

function seen(request: ReceivedRequest): Seen {
  const timestamp = header(request, 'x-corral-timestamp') ?? '';
  const signature = `sha256=${createHmac('sha256', SIGNING_KEY).update(`${timestamp}.${request.body}`).digest('hex')}`;
  return {
    method: request.method,
    path: request.path,
    contentType: header(request, 'content-type'),
    signed: header(request, 'x-corral-signature') === signature && Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300,
    id: header(request, 'x-corral-event-id'),
    seq: Number(header(request, 'x-corral-event-seq')),
    body: JSON.parse(request.body) as Seen['body'],
  };
}

/** The request docs/webhooks.md says an event makes: its body has exactly `event`, `vmid` (not for node events), `timestamp` and `node`. */
function expectedOf(event: RecordedEvent): Seen {
  const body = {
    event: event.event,
    ...(event.vmid !== null ? { vmid: event.vmid } : {}),
    timestamp: event.timestamp.toISOString(),
    node: event.node,
  };
  return { method: 'POST', path: '/hook', contentType: 'application/json', signed: true, id: event.id, seq: event.seq, body };
}

/** The delivery queue of an event (docs/webhooks.md "Order"): its guest's, or its node's. */
const queueOf = (vmid: number | null | undefined, node: string) => (vmid === null || vmid === undefined ? `node:${node}` : `vm:${vmid}`);

/**
 * Each delivery queue (a guest's, a node's: docs/webhooks.md "Order") as `<event> <seq>` in the
 * order given; a request repeated at once (at least once: it came again before the next) counts once.
 */
function queues(requests: readonly Seen[]): Record<string, string[]> {
  const byKey: Record<string, string[]> = {};
  for (const { body, seq } of requests) {
    const queue = (byKey[queueOf(body.vmid, body.node)] ??= []);
    if (queue.at(-1) !== `${body.event} ${seq}`) queue.push(`${body.event} ${seq}`);
  }
  return byKey;
}

// A real HTTP receiver process gets every base event kind that real operations
// make (native QEMU and LXC guests, a backup, agents joining and killed), with the event's fields and
// valid signatures; then, with the receiver stopped and the control plane killed with SIGKILL and
// restarted, it comes back and gets every event recorded meanwhile, in order, none missing.
describe('webhook delivery of real events', () => {
  let cp: ControlPlaneProcess | undefined;
  let db: pg.Client;
  let root: string;
  let databaseUrl: string;
  let receiver: WebhookReceiverProcess | undefined;
  const agents: AgentProcess[] = [];
  let host1: AgentProcess;
  let api: ReturnType<typeof guestApi>;
  /** The newest event before the webhook existed: it gets the events after it. */
  let firstSeq = 0;
  /** The newest event delivered in phase 1. */
  let phase1Seq = 0;

  const send = (path: string, method?: string, form?: Form) => api.send(path, method, form);
  const settled = (agent: AgentProcess, sinceMs: number) => agentSettled(agent, { sinceMs, quietMs: SETTLED_MS, timeoutMs: PATIENCE_MS });
  const task = (path: string, method?: string, form?: Form) => api.task('host1', path, method, form);
  /** The control plane on this test's data dir and database, on `port` (0: a free one), retrying a receiver within 2 s at most. */
  const startControlPlane = async (port: number) => {
    cp = await startOnTestDatabase({
      databaseUrl,
      dataDir: join(root, 'cp'),
      env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD, CORRAL_PORT: String(port), CORRAL_WEBHOOK_MAX_BACKOFF_S: '2' },
    });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
  };
  const recorded = async (afterSeq: number): Promise<RecordedEvent[]> => {
    const { rows } = await db.query<{ seq: string; id: string; event: string; node: string; vmid: number | null; timestamp: Date }>(
      'SELECT "seq", "id", "event", "node", "vmid", "timestamp" FROM "events" WHERE "seq" > $1 ORDER BY "seq"',
      [afterSeq],
    );
    return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
  };
  /** Waits until the receiver has every event recorded after `afterSeq` and the webhook has nothing pending; answers those events and what it got. */
  const allDelivered = async (afterSeq: number) => {
    let events: RecordedEvent[] = [];
    await waitFor(
      async () => {
        events = await recorded(afterSeq);
        const got = new Set(receiver?.requests.map((request) => header(request, 'x-corral-event-id')));
        return events.every((event) => got.has(event.id)) && data<unknown[]>(await send(`${HOOK}/deliveries?state=pending`)).length === 0;
      },
      { timeoutMs: PATIENCE_MS, what: `the receiver to get every event after seq ${afterSeq}`, intervalMs: 250 },
    );
    return { events, requests: (receiver?.requests ?? []).map(seen) };
  };
  /** Every request is right, none is missing or extra, and each queue came in the table's order. */
  const expectDelivered = (events: readonly RecordedEvent[], requests: readonly Seen[]) => {
    const expected = new Map(events.map((event) => [event.seq, expectedOf(event)]));
    expect(requests).toEqual(requests.map((request) => expected.get(request.seq)));
    expect([...new Set(requests.map((request) => request.seq))].sort((a, b) => a - b)).toEqual([...expected.keys()]);
    expect(queues(requests)).toEqual(queues([...expected.values()]));
  };
  const kindsOf = (events: readonly RecordedEvent[]) => {
    const byKey: Record<string, string[]> = {};
    for (const event of events) (byKey[queueOf(event.vmid, event.node)] ??= []).push(event.event);
    return byKey;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-event-delivery-'));
    await mkdir(join(root, 'cp'));
    databaseUrl = await testDatabaseUrl();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await startControlPlane(0);
    await mkdir(join(root, 'host1/var/lib/vz/template/cache'), { recursive: true });
    await buildBusyboxTemplate(join(root, 'host1/var/lib/vz/template/cache/busybox.tar.gz'));
    receiver = await WebhookReceiverProcess.start();
    // A webhook with a signing secret, and a matcher without rules: every event goes to it.
    const secret = `name=signing,value=${Buffer.from(SIGNING_KEY).toString('base64')}`;
    data(
      await send('/cluster/notifications/endpoints/webhook', 'POST', {
        name: 'all',
        url: receiver.url(),
        secret,
        'allow-local': 1,
        timeout: 5,
      }),
    );
    data(await send('/cluster/notifications/matchers', 'POST', { name: 'all', target: 'all' }));
    firstSeq = Number((await db.query<{ seq: string }>('SELECT COALESCE(MAX("seq"), 0) AS "seq" FROM "events"')).rows[0]?.seq);
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    // Guests outlive their agent (as in PVE): whatever a failed test left running is killed here.
    await run('pkill', ['-9', '-f', root]).catch(() => undefined);
    await run('lxc-stop', ['-P', join(root, 'host1/var/lib/corral/lxc'), '-n', '200', '-k']).catch(() => undefined);
    for (const agent of agents) await agent.kill();
    await receiver?.stop();
    await cp?.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  it("gets every base event kind of real operations, signed, with the event's fields, each guest and node in order", async () => {
    const joined = Date.now();
    host1 = await api.nativeAgent(root, 'host1');
    const host2 = await api.nativeAgent(root, 'host2');
    agents.push(host1, host2);
    await Promise.all([settled(host1, joined), settled(host2, joined)]);
    // Its node-down comes 10 s after its last heartbeat, while the guests below run.
    await host2.kill();

    expect(await task('/nodes/host1/qemu', 'POST', { vmid: 100, name: 'vm1', memory: 64, scsi0: 'local:0.0625' })).toBe('OK');
    expect(await task('/nodes/host1/qemu/100/status/start')).toBe('OK');
    expect(await task('/nodes/host1/vzdump', 'POST', { vmid: 100, storage: 'local', mode: 'snapshot' })).toBe('OK');
    expect(await task('/nodes/host1/qemu/100/status/stop')).toBe('OK');
    expect(await task('/nodes/host1/qemu/100', 'DELETE')).toBe('OK');
    expect(
      await task('/nodes/host1/lxc', 'POST', {
        vmid: 200,
        hostname: 'ct1',
        ostemplate: 'local:vztmpl/busybox.tar.gz',
        rootfs: 'local:0.5',
        memory: 64,
      }),
    ).toBe('OK');
    expect(await task('/nodes/host1/lxc/200/status/start')).toBe('OK');
    expect(await task('/nodes/host1/lxc/200/status/stop')).toBe('OK');
    expect(await task('/nodes/host1/lxc/200', 'DELETE')).toBe('OK');
    await waitFor(async () => (await recorded(firstSeq)).some((event) => event.event === 'node-down'), {
      timeoutMs: PATIENCE_MS,
      what: 'node-down of host2',
      intervalMs: 250,
    });

    const { events, requests } = await allDelivered(firstSeq);
    expect(kindsOf(events)).toEqual({
      'node:host1': ['cluster-join'],
      'node:host2': ['cluster-join', 'node-down'],
      'vm:100': ['vm-create', 'vm-start', 'backup-start', 'backup-end', 'vm-stop', 'vm-delete'],
      'vm:200': ['vm-create', 'ct-start', 'ct-stop', 'vm-delete'],
    });
    expectDelivered(events, requests);
    phase1Seq = events.at(-1)?.seq ?? 0;
  });

  it(
    'gets every event recorded while it was down, across a kill -9 and restart of the control plane, each queue in order and none missing',
    async () => {
      const port = receiver?.port ?? 0;
      await receiver?.stop();
      expect(await task('/nodes/host1/qemu', 'POST', { vmid: 101, name: 'vm2', memory: 64, scsi0: 'local:0.0625' })).toBe('OK');
      expect(await task('/nodes/host1/qemu/101/status/start')).toBe('OK');
      // host2's agent back after its node-down: a node-up (Corral's kind).
      agents.push(AgentProcess.agent(join(root, 'host2.json'), { CORRAL_DRIVER: 'native' }));
      await waitFor(async () => (await recorded(phase1Seq)).some((event) => event.event === 'node-up'), {
        timeoutMs: PATIENCE_MS,
        what: 'node-up of host2',
        intervalMs: 250,
      });

      const cpPort = cp?.port ?? 0;
      const killed = Date.now();
      await cp?.stop('SIGKILL');
      expect(cp?.child.signalCode).toBe('SIGKILL');
      // The agents find it again on its port.
      await startControlPlane(cpPort);
      await settled(host1, killed);
      expect(await task('/nodes/host1/qemu/101/status/stop')).toBe('OK');
      expect(await task('/nodes/host1/qemu/101', 'DELETE')).toBe('OK');

      receiver = await WebhookReceiverProcess.start(port);
      const { events, requests } = await allDelivered(phase1Seq);
      expect(kindsOf(events)).toEqual(
        expect.objectContaining({
          'vm:101': ['vm-create', 'vm-start', 'vm-stop', 'vm-delete'],
          'node:host2': expect.arrayContaining(['node-up']),
        }),
      );
      expectDelivered(events, requests);
      // They were tried while the receiver was down, and delivered once it was back.
      const deliveries = data<{ 'event-id': string; state: string; attempts: number }[]>(await send(`${HOOK}/deliveries?limit=1000`));
      const first = deliveries.find((delivery) => delivery['event-id'] === events[0]?.id);
      expect(first?.state).toBe('delivered');
      expect(first?.attempts).toBeGreaterThan(1);
    },
    3 * PATIENCE_MS,
  );
});
