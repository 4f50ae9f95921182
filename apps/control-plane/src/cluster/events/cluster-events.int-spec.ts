import { waitFor } from '@corral/testing';
import { addToken, addUser, apiToken, basic, call, dataOf, expectError, grant, ROOT } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { AccessModule } from '../../access/access.module.js';
import type { EventEntry } from '../../events/event-entry.js';
import { EventRetention } from '../../events/event-retention.js';
import { recordEvent, type NewEvent } from '../../events/record-event.js';
import { ClusterEventsModule } from './cluster-events.module.js';
import { EVENT_STREAM_CLOSE } from './events-websocket.js';
import { openSse, openWebsocket, opened, type SseClient, type WsClient } from './stream-clients.fixture.js';

const PASSWORD = 'events-password';
const VMUSER = basic('vmuser@pve', PASSWORD);
const AUDITOR = basic('auditor@pve', PASSWORD);
const TOKEN_SECRET = '5f0c9a55-2a8e-4a57-9d4c-000000000007';
const WAIT = { timeoutMs: 20_000 };
const DAY_MS = 24 * 60 * 60 * 1000;

class Rollback extends Error {}

describe('the event stream (GET /cluster/events)', () => {
  let t: TestApp;
  const sockets: WsClient[] = [];
  const sses: SseClient[] = [];

  const record = (event: NewEvent): Promise<number> => t.dataSource.transaction((db) => recordEvent(db, event));
  const committedAfter = async (seq: number): Promise<number[]> =>
    ((await t.dataSource.query('SELECT "seq" FROM "events" WHERE "seq" > $1 ORDER BY "seq"', [seq])) as { seq: string }[]).map((row) =>
      Number(row.seq),
    );
  const ws = async (query: Record<string, string>, headers: Record<string, string> = ROOT) => {
    const client = opened(await openWebsocket(t, query, headers));
    sockets.push(client);
    return client;
  };
  const sse = async (query: Record<string, string>, headers: Record<string, string> = ROOT) => {
    const client = await openSse(t, query, headers);
    sses.push(client);
    return client;
  };
  const seqs = (events: readonly EventEntry[]) => events.map((event) => event.seq);
  const received = (events: () => readonly EventEntry[], seq: number, what: string) =>
    waitFor(() => events().some((event) => event.seq === seq), { ...WAIT, what });

  beforeAll(async () => {
    t = await startTestApp({ imports: [AccessModule, ClusterEventsModule] });
    await addUser(t, 'vmuser@pve', { password: PASSWORD });
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'vmuser@pve', roleid: 'PVEVMUser' });
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
    await addToken(t, 'root@pam', 'events', { privsep: false, secret: TOKEN_SECRET });
  });

  afterEach(() => {
    for (const client of sockets.splice(0)) client.socket.terminate();
    for (const client of sses.splice(0)) client.close();
  });

  afterAll(() => t.close());

  it('replays after since from the table, then follows live, with no gap and no repeat while many writers commit (and some roll back)', async () => {
    const before = await record({ event: 'vm-create', node: 'pve1', vmid: 100 });
    // More than the feed keeps in memory, in one transaction: a reader this far behind reads the table.
    const prelude = await t.dataSource.transaction(async (db) => {
      const written: number[] = [];
      for (let i = 0; i < 4500; i++) written.push(await recordEvent(db, { event: 'vm-start', node: 'pve1', vmid: 100 + (i % 5) }));
      return written;
    });
    const middle = prelude[2000] as number;
    const fromStart = await ws({ since: String(before) });
    const fromMiddle = await sse({ since: String(middle) });
    const live = await ws({});

    const writers = Array.from({ length: 8 }, async (_, writer) => {
      for (let i = 0; i < 40; i++) {
        await t.dataSource
          .transaction(async (db) => {
            await recordEvent(db, { event: i % 2 === 0 ? 'vm-stop' : 'vm-start', node: `pve${writer}`, vmid: 200 + writer });
            // A writer that rolls back leaves a gap in seq, which readers must not wait for.
            if (i % 7 === 3) throw new Rollback();
          })
          .catch((error: unknown) => {
            if (!(error instanceof Rollback)) throw error;
          });
      }
    });
    // A client that starts while the writers write.
    const midway = await ws({ since: String(prelude.at(-1)) });
    await Promise.all(writers);
    const last = await record({ event: 'vm-delete', node: 'pve1', vmid: 100 });

    for (const [name, events] of [
      ['from the start', () => fromStart.events],
      ['from the middle', fromMiddle.events],
      ['live', () => live.events],
      ['midway', () => midway.events],
    ] as const) {
      await received(events, last, `the last event, ${name}`);
    }
    expect(seqs(fromStart.events)).toEqual(await committedAfter(before));
    expect(seqs(fromMiddle.events())).toEqual(await committedAfter(middle));
    expect(seqs(midway.events)).toEqual(await committedAfter(prelude.at(-1) as number));
    // A stream without since starts after the newest event when it opened: the prelude was all in.
    expect(seqs(live.events)).toEqual(await committedAfter(prelude.at(-1) as number));
    expect(seqs(live.events)).toHaveLength(8 * 40 - 8 * 6 + 1);
  }, 120_000);

  it('sends only the kinds, node and vmid asked for, on every transport and in JSON', async () => {
    const start = await record({ event: 'vm-create', node: 'pve1', vmid: 300 });
    const kinds = await ws({ since: String(start), 'event-type': 'vm-start,node-down' });
    const node = await sse({ since: String(start), node: 'pve2' });
    const vmid = await ws({ since: String(start), vmid: '301' });
    const written = [
      await record({ event: 'vm-start', node: 'pve1', vmid: 300 }),
      await record({ event: 'vm-stop', node: 'pve2', vmid: 301 }),
      await record({ event: 'node-down', node: 'pve2' }),
      await record({ event: 'vm-start', node: 'pve2', vmid: 301 }),
    ];
    const [start300, stop301, down2, start301] = written as [number, number, number, number];
    await received(() => kinds.events, start301, 'the kinds');
    await received(node.events, start301, 'the node');
    await received(() => vmid.events, start301, 'the vmid');
    expect(seqs(kinds.events)).toEqual([start300, down2, start301]);
    expect(seqs(node.events())).toEqual([stop301, down2, start301]);
    expect(seqs(vmid.events)).toEqual([stop301, start301]);

    const json = dataOf<EventEntry[]>(await call(t, 'GET', '/cluster/events', { query: `since=${start}&event-type=vm-start&node=pve2` }));
    expect(json).toEqual([
      {
        seq: start301,
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        event: 'vm-start',
        node: 'pve2',
        vmid: 301,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        details: {},
      },
    ]);
    const down = dataOf<EventEntry[]>(await call(t, 'GET', '/cluster/events', { query: `since=${start}&event-type=node-down` }));
    expect(down).toEqual([expect.objectContaining({ seq: down2, event: 'node-down', node: 'pve2' })]);
    expect(down[0]).not.toHaveProperty('vmid');
    expectError(
      await call(t, 'GET', '/cluster/events', { query: 'event-type=vm-start,vm-explode' }),
      400,
      "unknown event kind 'vm-explode'",
      'event-type',
    );
  });

  it('pages JSON for polling clients: after since at most limit, and without since the newest', async () => {
    const start = await record({ event: 'vm-create', node: 'pve1', vmid: 400 });
    const written = [
      await record({ event: 'vm-start', node: 'pve1', vmid: 400 }),
      await record({ event: 'vm-stop', node: 'pve1', vmid: 400 }),
      await record({ event: 'vm-delete', node: 'pve1', vmid: 400 }),
    ];
    expect(seqs(dataOf(await call(t, 'GET', '/cluster/events', { query: `since=${start}&limit=2` })))).toEqual(written.slice(0, 2));
    expect(seqs(dataOf(await call(t, 'GET', '/cluster/events', { query: `since=${written[1]}` })))).toEqual(written.slice(2));
    expect(seqs(dataOf(await call(t, 'GET', '/cluster/events', { query: `since=${written[2]}` })))).toEqual([]);
    expect(seqs(dataOf(await call(t, 'GET', '/cluster/events', { query: 'vmid=400&limit=2' })))).toEqual(written.slice(1));
  });

  it('shows a caller only the events it may audit: VM.Audit on the guest, Sys.Audit on the node', async () => {
    const start = await record({ event: 'vm-create', node: 'pve1', vmid: 101 });
    const asVmuser = await ws({ since: String(start) }, VMUSER);
    const asAuditor = await sse({ since: String(start) }, AUDITOR);
    const written = [
      await record({ event: 'vm-start', node: 'pve1', vmid: 101 }),
      await record({ event: 'node-down', node: 'pve1' }),
      await record({ event: 'vm-start', node: 'pve1', vmid: 100 }),
      await record({ event: 'backup-end', node: 'pve1', vmid: 102, details: { status: 'ok' } }),
      await record({ event: 'vm-stop', node: 'pve1', vmid: 100 }),
    ];
    const [, , start100, , stop100] = written as [number, number, number, number, number];
    await received(() => asVmuser.events, stop100, "vmuser's last event");
    await received(asAuditor.events, stop100, "the auditor's last event");
    expect(seqs(asVmuser.events)).toEqual([start100, stop100]);
    expect(seqs(asAuditor.events())).toEqual(written);
    expect(seqs(dataOf(await call(t, 'GET', '/cluster/events', { as: VMUSER, query: `since=${start}` })))).toEqual([start100, stop100]);
  });

  it('frames server-sent events as id, event and data, and resumes after Last-Event-ID', async () => {
    const start = await record({ event: 'vm-create', node: 'pve1', vmid: 500 });
    const first = await record({ event: 'vm-start', node: 'pve1', vmid: 500 });
    const second = await record({ event: 'vm-stop', node: 'pve1', vmid: 500 });
    const client = await sse({ since: String(start) });
    expect(client.status).toBe(200);
    await received(client.events, second, 'both events');
    expect(client.text()).toMatch(new RegExp(`^retry: 3000\nid: ${start}\n\n`));
    const [block] = client.blocks();
    expect(block).toEqual({ id: String(first), event: 'vm-start', data: expect.any(String) });
    expect(JSON.parse(block?.data ?? '')).toEqual(expect.objectContaining({ seq: first, event: 'vm-start', node: 'pve1', vmid: 500 }));
    expect(client.text()).toContain(`id: ${first}\nevent: vm-start\ndata: {"seq":${first},`);

    // An EventSource that reconnects sends its last id, which wins over the since of its URL.
    const resumed = await sse({ since: String(start) }, { ...ROOT, 'last-event-id': String(first) });
    await received(resumed.events, second, 'the resumed stream');
    expect(seqs(resumed.events())).toEqual([second]);
  });

  it('accepts a websocket with an API token or a ticket cookie, and refuses one without valid credentials with 401', async () => {
    const start = await record({ event: 'vm-create', node: 'pve1', vmid: 600 });
    const byToken = await ws({ since: String(start) }, apiToken('root@pam!events', TOKEN_SECRET));
    const { ticket } = dataOf<{ ticket: string }>(
      await call(t, 'POST', '/access/ticket', { as: {}, form: { username: 'auditor@pve', password: PASSWORD } }),
    );
    const byTicket = await ws({ since: String(start) }, { cookie: `PVEAuthCookie=${encodeURIComponent(ticket)}` });
    const seq = await record({ event: 'vm-start', node: 'pve1', vmid: 600 });
    await received(() => byToken.events, seq, 'the event, by token');
    await received(() => byTicket.events, seq, 'the event, by ticket');

    expect(await openWebsocket(t, {}, {})).toBe(401);
    expect(await openWebsocket(t, {}, apiToken('root@pam!events', '00000000-0000-0000-0000-000000000000'))).toBe(401);
    expect(await openWebsocket(t, {}, basic('vmuser@pve', 'wrong-password'))).toBe(401);
    expect((await call(t, 'GET', '/cluster/events', { as: {} })).status).toBe(401);
  });

  it('refuses a cursor that is malformed or in the future with 400 naming it', async () => {
    const newest = await record({ event: 'vm-create', node: 'pve1', vmid: 700 });
    expectError(await call(t, 'GET', '/cluster/events', { query: 'since=abc' }), 400, "expected an integer, got 'abc'", 'since');
    expectError(await call(t, 'GET', '/cluster/events', { query: 'since=-1' }), 400, 'must be at least 0', 'since');
    expectError(
      await call(t, 'GET', '/cluster/events', { query: `since=${newest + 1000}` }),
      400,
      `since ${newest + 1000} is in the future: the newest event is`,
      'since',
    );
    expect(await openWebsocket(t, { since: String(newest + 1000) }, ROOT)).toBe(400);
    const future = await sse({ since: String(newest + 1000) });
    expect(future.status).toBe(400);
    const badId = await sse({}, { ...ROOT, 'last-event-id': 'yesterday' });
    expect(badId.status).toBe(400);
    await waitFor(() => badId.ended(), { ...WAIT, what: 'the error body' });
    expect(JSON.parse(badId.text())).toEqual({ data: null, errors: [expect.objectContaining({ code: 400, param: 'Last-Event-ID' })] });
  });

  // Last: retention deletes events, which moves the cursor every later test could use.
  it('deletes events past the retention period, and answers a cursor before them 410 with the oldest available seq', async () => {
    const old = new Date(Date.now() - 8 * DAY_MS);
    const before = await record({ event: 'vm-create', node: 'pve1', vmid: 800 });
    const expired = [
      await record({ event: 'vm-start', node: 'pve1', vmid: 800, timestamp: old }),
      await record({ event: 'vm-stop', node: 'pve1', vmid: 800, timestamp: old }),
    ];
    const kept = await record({ event: 'vm-delete', node: 'pve1', vmid: 800, timestamp: new Date(Date.now() - 6 * DAY_MS) });
    expect(await t.app.get(EventRetention).sweep()).toBe(2);
    expect(await t.app.get(EventRetention).sweep()).toBe(0);
    expect(await committedAfter(before)).toEqual([kept]);
    const oldest = Number(((await t.dataSource.query('SELECT min("seq") AS "seq" FROM "events"')) as [{ seq: string }])[0].seq);

    const gone = await call(t, 'GET', '/cluster/events', { query: `since=${before}` });
    expectError(gone, 410, `events after ${before} were deleted (retention): the oldest available is ${oldest}`);
    expect(gone.reason).toMatch(/^events after \d+ were deleted/);
    expect(await openWebsocket(t, { since: String(before) }, ROOT)).toBe(410);
    expect((await sse({ since: String(before) })).status).toBe(410);
    // Right after the deleted events nothing is missing.
    expect(seqs(dataOf(await call(t, 'GET', '/cluster/events', { query: `since=${expired[1]}&vmid=800` })))).toEqual([kept]);
  });

  it('ends a stream (websocket 4410, server-sent events a last end event) when retention deleted events it has yet to send', async () => {
    const behind = await record({ event: 'vm-create', node: 'pve1', vmid: 900 });
    const socket = await ws({ since: String(behind), vmid: '901' });
    const events = await sse({ since: String(behind), vmid: '901' });
    // More events than the feed keeps in memory, part of them marked deleted: the waiting streams, behind the feed's memory now, read the table.
    await t.dataSource.transaction(async (db) => {
      const written: number[] = [];
      for (let i = 0; i < 4200; i++) written.push(await recordEvent(db, { event: 'vm-start', node: 'pve1', vmid: 902 }));
      await db.query('UPDATE "event_retention" SET "pruned_through" = $1 WHERE "id" = 1', [written[100]]);
    });
    await waitFor(() => socket.closed !== null && events.ended(), { ...WAIT, what: 'both streams to end' });
    expect(socket.closed).toEqual({
      code: EVENT_STREAM_CLOSE.expired,
      reason: expect.stringMatching(/^events after \d+ were deleted \(retention\): the oldest available is \d+/),
    });
    expect(events.blocks().at(-1)).toEqual({
      event: 'end',
      data: expect.stringMatching(/^\{"status":410,"message":"events after \d+ were deleted/),
    });
    expect(events.events()).toEqual([]);
  });
});
