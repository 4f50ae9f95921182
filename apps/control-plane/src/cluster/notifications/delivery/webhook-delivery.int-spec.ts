import { waitFor, WebhookReceiver, type ReceivedRequest } from '@corral/testing';
import { createHmac, randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { call, dataOf, type Form } from '../../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../../test-support/test-app.js';
import { DatabaseNotifications } from '../../../database/notifications.js';
import type { EventKind } from '@corral/pve-formats/cluster-event-kinds';
import { EventRow } from '../../../events/event.entity.js';
import { recordEvent } from '../../../events/record-event.js';
import { GuestRow } from '../../../inventory/guests/guest.entity.js';
import { PoolGuestRow } from '../../../inventory/pools/pool-guest.entity.js';
import { PoolRow } from '../../../inventory/pools/pool.entity.js';
import { MatchersRepository } from '../matchers/matchers.repository.js';
import { NotificationsModule } from '../notifications.module.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import type { DeliveryEntry } from './deliveries.endpoints.js';
import { deliverySettings, type DeliverySettings } from './delivery-settings.js';
import { planDeliveries } from './delivery-plan.js';
import { WebhookDeliveryModule } from './webhook-delivery.module.js';
import { WebhookDelivery } from './webhook-delivery.js';

const WEBHOOKS = '/cluster/notifications/endpoints/webhook';
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** Quick retries, and small dispatch batches so that a burst of events takes several. */
const FAST: DeliverySettings = {
  ...deliverySettings({ webhookRetryHours: 1, webhookMaxBackoffS: 600 }),
  firstRetryMs: 50,
  maxRetryMs: 400,
  pollMs: 250,
  perWebhook: 4,
  inFlight: 16,
  leaseGraceMs: 1000,
  dispatchBatch: 7,
};

/**
 * Webhook delivery on real PostgreSQL to a real HTTP receiver on 127.0.0.1: dispatchers and
 * senders made here stand for control-plane replicas sharing the database, with the pace each
 * test needs; two of them run at once in every test.
 */
describe('webhook delivery', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let replicas: WebhookDelivery[] = [];

  const replica = (settings: DeliverySettings = FAST): WebhookDelivery => {
    const repository = new DeliveriesRepository(t.dataSource, new MatchersRepository(t.dataSource));
    const delivery = new WebhookDelivery(repository, t.app.get(DatabaseNotifications), settings, pino({ level: 'silent' }));
    delivery.onApplicationBootstrap();
    return delivery;
  };
  const startReplicas = (settings?: DeliverySettings) => {
    replicas = [replica(settings), replica(settings)];
  };

  const webhook = async (name: string, form: Form = {}) =>
    dataOf(await call(t, 'POST', WEBHOOKS, { form: { name, url: receiver.url(`/${name}`), 'allow-local': 1, ...form } }));
  const matcher = async (name: string, form: Form) =>
    dataOf(await call(t, 'POST', '/cluster/notifications/matchers', { form: { name, ...form } }));
  const record = (event: EventKind, node: string, vmid?: number) =>
    t.dataSource.transaction((db) => recordEvent(db, { event, node, ...(vmid !== undefined ? { vmid } : {}) }));
  const deliveries = async (name: string, query = '') =>
    dataOf<DeliveryEntry[]>(await call(t, 'GET', `${WEBHOOKS}/${name}/deliveries`, { query }));
  const at = (path: string) => receiver.requests.filter((request) => request.path === path);
  const bodies = (path: string) => receiver.bodies(path);
  const received = (path: string, count: number, what: string) => waitFor(() => at(path).length >= count, { timeoutMs: 10_000, what });

  beforeAll(async () => {
    t = await startTestApp({ imports: [NotificationsModule] });
    receiver = await WebhookReceiver.start();
    await t.dataSource.manager.insert(PoolRow, { poolid: 'prod', comment: null });
    for (const vmid of [100, 101, 200])
      await t.dataSource.manager.insert(GuestRow, { vmid, type: vmid < 200 ? 'qemu' : 'lxc', node: 'pve1', config: {}, lock: null });
    await t.dataSource.manager.insert(PoolGuestRow, { vmid: 200, poolid: 'prod' });
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.answer = () => 200;
  });
  afterEach(async () => {
    await Promise.all(replicas.map((r) => r.onApplicationShutdown()));
    replicas = [];
    // Each test's targets go, with their deliveries, so that no test sends to another's.
    await t.dataSource.query('DELETE FROM "notification_matchers"');
    await t.dataSource.query('DELETE FROM "notification_webhooks"');
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it("POSTs the event's body, nothing else, with the event's id and seq, a valid signature and the webhook's headers", async () => {
    startReplicas();
    await webhook('signed', {
      header: [`name=Authorization,value=${b64('Bearer {{ secrets.token }}')}`, `name=X-Team,value=${b64('ops')}`],
      secret: [`name=signing,value=${b64('k3y')}`, `name=token,value=${b64('t0ken')}`],
    });
    await webhook('unsigned');
    await matcher('all-to-both', { target: ['signed', 'unsigned'] });
    const before = Math.floor(Date.now() / 1000);
    const seq = await record('vm-start', 'pve1', 100);
    const nodeSeq = await record('node-down', 'pve2');
    await received('/signed', 2, 'both events at the signed webhook');
    await received('/unsigned', 2, 'both events at the unsigned webhook');
    const events = await t.dataSource.manager.find(EventRow, { order: { seq: 'ASC' } });
    const [vmStart, nodeDown] = [events.find((e) => Number(e.seq) === seq), events.find((e) => Number(e.seq) === nodeSeq)];

    // Events of different guests and nodes are delivered side by side: either may arrive first.
    const bodyOf = (request: ReceivedRequest) => JSON.parse(request.body) as { event: string };
    const first = at('/signed').find((request) => bodyOf(request).event === 'vm-start') as ReceivedRequest;
    const second = at('/signed').find((request) => bodyOf(request).event === 'node-down') as ReceivedRequest;
    expect(first.method).toBe('POST');
    expect(first.body).toBe(JSON.stringify({ event: 'vm-start', vmid: 100, timestamp: vmStart?.timestamp.toISOString(), node: 'pve1' }));
    expect(second.body).toBe(JSON.stringify({ event: 'node-down', timestamp: nodeDown?.timestamp.toISOString(), node: 'pve2' }));
    expect(first.headers).toEqual(
      expect.objectContaining({
        'content-type': 'application/json',
        'x-corral-event-id': vmStart?.id,
        'x-corral-event-seq': String(seq),
        authorization: 'Bearer t0ken',
        'x-team': 'ops',
      }),
    );
    const timestamp = Number(first.headers['x-corral-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(first.headers['x-corral-signature']).toBe(
      `sha256=${createHmac('sha256', 'k3y').update(`${timestamp}.${first.body}`).digest('hex')}`,
    );
    expect(second.headers['x-corral-event-id']).toBe(nodeDown?.id);
    // Without a `signing` secret, no signature.
    expect(at('/unsigned').map((request) => request.headers['x-corral-signature'])).toEqual([undefined, undefined]);
    expect(at('/unsigned').map((request) => request.body)).toContain(first.body);

    await waitFor(async () => (await deliveries('signed')).every((d) => d.state === 'delivered'), {
      timeoutMs: 5000,
      what: 'the deliveries recorded',
    });
    expect(await deliveries('signed')).toEqual([
      {
        id: expect.any(Number),
        'event-seq': nodeSeq,
        'event-id': nodeDown?.id,
        event: 'node-down',
        node: 'pve2',
        state: 'delivered',
        attempts: 1,
        created: expect.any(Number),
        'last-attempt': expect.any(Number),
        'last-status': 200,
      },
      {
        id: expect.any(Number),
        'event-seq': seq,
        'event-id': vmStart?.id,
        event: 'vm-start',
        node: 'pve1',
        vmid: 100,
        state: 'delivered',
        attempts: 1,
        created: expect.any(Number),
        'last-attempt': expect.any(Number),
        'last-status': 200,
      },
    ]);
    expect(Number(first.headers['x-corral-delivery'])).toBe((await deliveries('signed'))[1]?.id);
  });

  it('sends each webhook the events its matchers select by kind, node, vmid and pool', async () => {
    startReplicas();
    for (const name of ['kinds', 'nodes', 'vmids', 'pools', 'nothing', 'disabled'])
      await webhook(name, name === 'disabled' ? { disable: 1 } : {});
    await matcher('by-kind', { 'match-field': 'exact:type=vm-start,ct-start', target: 'kinds' });
    await matcher('by-node', { 'match-field': 'regex:node=^pve2$', target: 'nodes' });
    await matcher('by-vmid', { 'match-field': 'exact:vmid=101', target: 'vmids' });
    await matcher('by-pool', { 'match-field': 'exact:pool=prod', target: ['pools', 'disabled'] });
    await matcher('never', { 'match-field': 'exact:type=vm-start', 'invert-match': 1, mode: 'any', target: 'nothing', disable: 1 });
    await record('vm-start', 'pve1', 100);
    await record('vm-stop', 'pve1', 101);
    await record('ct-start', 'pve1', 200);
    await record('node-down', 'pve2');
    await record('cluster-join', 'pve3');
    const last = await record('ct-stop', 'pve1', 200);
    await waitFor(async () => Number((await t.dataSource.query('SELECT "seq" FROM "notification_dispatch_cursor"'))[0].seq) >= last, {
      timeoutMs: 5000,
      what: 'the events dispatched',
    });
    await received('/pools', 2, 'the pool events');
    await received('/kinds', 2, 'the kind events');
    await received('/nodes', 1, 'the node event');
    await received('/vmids', 1, 'the vmid event');
    const kinds = (path: string) => bodies(path).map((body) => `${String(body['event'])} ${String(body['vmid'] ?? body['node'])}`);
    expect(kinds('/kinds')).toEqual(['vm-start 100', 'ct-start 200']);
    expect(kinds('/nodes')).toEqual(['node-down pve2']);
    expect(kinds('/vmids')).toEqual(['vm-stop 101']);
    expect(kinds('/pools')).toEqual(['ct-start 200', 'ct-stop 200']);
    expect(at('/nothing')).toEqual([]);
    // A disabled webhook gets no deliveries at all.
    expect(await deliveries('disabled')).toEqual([]);
  });

  it('keeps the order of each guest while the receiver fails, and sends all once it recovers', async () => {
    startReplicas();
    await webhook('flaky');
    await matcher('to-flaky', { target: 'flaky' });
    let failures = 0;
    receiver.answer = () => (failures++ < 4 ? 500 : 200);
    const kinds: EventKind[] = ['vm-create', 'vm-start', 'vm-stop', 'vm-delete'];
    for (const kind of kinds) {
      await record(kind, 'pve1', 100);
      await record(kind, 'pve1', 101);
    }
    await record('node-down', 'pve2');
    await waitFor(async () => (await deliveries('flaky')).filter((d) => d.state === 'delivered').length === 9, {
      timeoutMs: 15_000,
      what: 'all nine delivered',
    });
    for (const vmid of [100, 101]) {
      const requests = bodies('/flaky').filter((body) => body['vmid'] === vmid);
      // Never one behind another that was not yet delivered: a retried event repeats before the next one.
      const order = requests.map((body) => kinds.indexOf(body['event'] as EventKind));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect([...new Set(order)]).toEqual([0, 1, 2, 3]);
    }
    const list = await deliveries('flaky');
    expect(list.reduce((sum, d) => sum + d.attempts, 0)).toBe(9 + 4);
    expect(list.filter((d) => d.attempts > 1)).not.toEqual([]);
    expect(list.every((d) => d.state === 'delivered' && d['last-status'] === 200 && d['last-error'] === undefined)).toBe(true);
  });

  it('marks a delivery failed when its retry window ends, then sends the next one of its guest', async () => {
    startReplicas({ ...FAST, retryWindowMs: 1500 });
    await webhook('down');
    await matcher('to-down', { target: 'down' });
    receiver.answer = (request) => (JSON.parse(request.body).event === 'vm-start' ? 503 : 200);
    await record('vm-start', 'pve1', 100);
    await record('vm-stop', 'pve1', 100);
    await waitFor(() => bodies('/down').some((body) => body['event'] === 'vm-stop'), { timeoutMs: 10_000, what: 'the next delivery sent' });
    const [stop, start] = await deliveries('down');
    expect(start).toEqual(
      expect.objectContaining({ event: 'vm-start', state: 'failed', 'last-status': 503, 'last-error': 'answered 503: answer 503' }),
    );
    expect(start?.attempts).toBeGreaterThan(1);
    expect(start).not.toHaveProperty('next-attempt');
    // The failed one's attempts all came before the next one.
    expect(bodies('/down').map((body) => body['event'])).toEqual([...Array<string>(start?.attempts ?? 0).fill('vm-start'), 'vm-stop']);
    await waitFor(async () => (await deliveries('down', 'state=delivered')).length === 1, {
      timeoutMs: 5000,
      what: 'the next one recorded delivered',
    });
    expect(stop?.event).toBe('vm-stop');
  });

  it('follows no redirect: a 3xx is a failed attempt, retried', async () => {
    startReplicas();
    await webhook('moved');
    await matcher('to-moved', { target: 'moved' });
    receiver.answer = () => ({ status: 302, headers: { location: '/elsewhere' } });
    await record('vm-start', 'pve1', 100);
    await waitFor(async () => ((await deliveries('moved'))[0]?.attempts ?? 0) >= 2, { timeoutMs: 5000, what: 'two attempts' });
    expect((await deliveries('moved'))[0]).toEqual(
      expect.objectContaining({
        state: 'pending',
        'last-status': 302,
        'last-error': expect.stringContaining('a redirect to /elsewhere, which Corral does not follow'),
        'next-attempt': expect.any(Number),
      }),
    );
    expect(receiver.requests.filter((request) => request.path !== '/moved')).toEqual([]);
  });

  it('refuses a host name that resolves to loopback without allow-local: failed at once, nothing sent', async () => {
    startReplicas();
    await webhook('sneaky', { url: receiver.url('/sneaky').replace('127.0.0.1', 'localhost'), 'allow-local': 0 });
    await matcher('to-sneaky', { target: 'sneaky' });
    await record('vm-start', 'pve1', 100);
    await waitFor(async () => (await deliveries('sneaky'))[0]?.state === 'failed', { timeoutMs: 5000, what: 'the delivery refused' });
    expect((await deliveries('sneaky'))[0]).toEqual(
      expect.objectContaining({
        attempts: 1,
        'last-error': expect.stringMatching(
          /^localhost resolves to (127\.0\.0\.1|::1), a loopback, link-local or cloud metadata address, which the webhook may reach only with allow-local=1$/,
        ),
      }),
    );
    expect(at('/sneaky')).toEqual([]);
  });

  it('sends to other webhooks while one hangs until its timeout', async () => {
    startReplicas();
    await webhook('hangs', { timeout: 2 });
    await webhook('quick');
    await matcher('to-both', { target: ['hangs', 'quick'] });
    receiver.answer = (request) => (request.path === '/hangs' ? 'hang' : 200);
    for (const vmid of [100, 101, 200]) await record('vm-start', 'pve1', vmid);
    await received('/quick', 3, 'every event at the quick webhook');
    await waitFor(async () => (await deliveries('quick')).every((d) => d.state === 'delivered'), {
      timeoutMs: 5000,
      what: 'the quick deliveries recorded',
    });
    // Meanwhile the hanging receiver holds its requests: none has an answer yet.
    expect(at('/hangs').length).toBeGreaterThan(0);
    expect((await deliveries('hangs')).map((d) => d.attempts)).toEqual([0, 0, 0]);
    await waitFor(async () => (await deliveries('hangs')).every((d) => d['last-error'] === 'no answer within 2 s'), {
      timeoutMs: 10_000,
      what: 'the timeouts recorded',
    });
  });

  it('sends a delivery that a replica claimed and died with once its claim ends', async () => {
    await webhook('orphan', { timeout: 1 });
    await matcher('to-orphan', { target: 'orphan' });
    await record('vm-start', 'pve1', 100);
    const dead = new DeliveriesRepository(t.dataSource, new MatchersRepository(t.dataSource));
    await dead.dispatch(10, planDeliveries);
    const heads = await dead.heads(10);
    expect(
      await dead.claim(
        heads.map((head) => head.id),
        randomUUID(),
        0,
      ),
    ).toHaveLength(1);
    startReplicas();
    await received('/orphan', 1, 'the orphaned delivery');
    await waitFor(async () => (await deliveries('orphan'))[0]?.state === 'delivered', { timeoutMs: 5000, what: 'it recorded delivered' });
    expect((await deliveries('orphan'))[0]?.attempts).toBe(1);
  });

  it('delivers each event once while two replicas race, in order per guest and per node', async () => {
    await webhook('busy');
    await matcher('to-busy', { target: 'busy' });
    const sent: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      for (const vmid of [100, 101, 200]) sent.push(`${await record(i % 2 === 0 ? 'vm-start' : 'vm-stop', 'pve1', vmid)}`);
      sent.push(`${await record('cluster-join', `pve${(i % 2) + 1}`)}`);
    }
    // Recorded while no replica ran: dispatched from the cursor when they start.
    startReplicas();
    await received('/busy', sent.length, 'every event');
    await waitFor(async () => (await deliveries('busy', 'limit=100')).every((d) => d.state === 'delivered'), {
      timeoutMs: 5000,
      what: 'all recorded delivered',
    });
    const seqs = at('/busy').map((request) => String(request.headers['x-corral-event-seq']));
    expect([...seqs].sort()).toEqual([...sent].sort());
    expect(new Set(at('/busy').map((request) => request.headers['x-corral-event-id'])).size).toBe(sent.length);
    const keyOf = (body: Record<string, unknown>) => String(body['vmid'] ?? body['node']);
    for (const key of ['100', '101', '200', 'pve1', 'pve2']) {
      const order = at('/busy')
        .filter((request) => keyOf(JSON.parse(request.body) as Record<string, unknown>) === key)
        .map((request) => Number(request.headers['x-corral-event-seq']));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });
});

describe('webhook delivery in the app', () => {
  it('runs with the app: an event recorded is POSTed to the receiver', async () => {
    const t = await startTestApp({ imports: [NotificationsModule, WebhookDeliveryModule] });
    const receiver = await WebhookReceiver.start();
    try {
      dataOf(await call(t, 'POST', WEBHOOKS, { form: { name: 'app', url: receiver.url(), 'allow-local': 1 } }));
      dataOf(
        await call(t, 'POST', '/cluster/notifications/matchers', {
          form: { name: 'app', 'match-field': 'exact:type=ct-start', target: 'app' },
        }),
      );
      await t.dataSource.transaction((db) => recordEvent(db, { event: 'ct-start', node: 'pve1', vmid: 300 }));
      await waitFor(() => receiver.requests.length === 1, { timeoutMs: 5000, what: 'the request' });
      expect(receiver.bodies()).toEqual([{ event: 'ct-start', vmid: 300, timestamp: expect.any(String), node: 'pve1' }]);
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});
