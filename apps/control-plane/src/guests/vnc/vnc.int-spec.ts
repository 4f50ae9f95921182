import type { FakeAgent, FakeAnswer } from '@corral/testing';
import { waitFor } from '@corral/testing';
import type { RequestFrame } from '@corral/protocol';
import { X509Certificate } from 'node:crypto';
import WebSocket from 'ws';
import { addUser, basic, call, dataOf, expectError, grant, ROOT, type Headers } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { GuestsModule } from '../guests.module.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { VncModule } from './vnc.module.js';

const PASSWORD = 'vnc-password';
const VMUSER = basic('vmuser@pve', PASSWORD);
const AUDITOR = basic('auditor@pve', PASSWORD);
const WAIT = { timeoutMs: 10_000 };

interface Proxy {
  user: string;
  ticket: string;
  cert: string;
  port: number;
  upid: string;
}

/** One stream the fake agent opened: its websocket, and whether the control plane closed it. */
interface Stream {
  readonly socket: WebSocket;
  closed: { code: number; reason: string } | null;
}

/** A websocket client's end: what came, how it closed, or the HTTP status its upgrade was refused with. */
interface Client {
  readonly socket: WebSocket;
  received: string;
  closed: { code: number; reason: string } | null;
}

describe('the VNC console of a VM (vncproxy, vncwebsocket)', () => {
  let t: TestApp;
  let agent: FakeAgent;
  let credential: string;
  const streams: Stream[] = [];
  const clients: WebSocket[] = [];
  /** What the fake agent answers `guest.vnc.open` instead of opening the stream. */
  let refusal: FakeAnswer | null = null;

  const origin = () => new URL(t.agentUrl).host;

  /** The agent's side: a stream to the control plane with the node's credential, saying the RFB version, then echoing. */
  const openStream = (request: RequestFrame): Promise<FakeAnswer> => {
    const { stream } = request.params as { stream: string };
    const socket = new WebSocket(`wss://${origin()}/agent/v1/streams/${stream}`, {
      ca: t.cert,
      headers: { authorization: `CorralNode pve1:${credential}` },
    });
    const opened: Stream = { socket, closed: null };
    streams.push(opened);
    socket.on('message', (data: Buffer) => socket.send(data, { binary: true }));
    socket.on('close', (code, reason) => (opened.closed = { code, reason: reason.toString() }));
    return new Promise((resolve) => {
      socket.once('open', () => {
        socket.send(Buffer.from('RFB 003.008\n'), { binary: true });
        resolve({ result: null });
      });
      socket.once('error', (error) => resolve({ failure: 'failed', message: error.message }));
    });
  };

  const proxy = async (vmid = 100, as: Headers = ROOT): Promise<Proxy> =>
    dataOf<Proxy>(await call(t, 'POST', `/nodes/pve1/qemu/${vmid}/vncproxy`, { as, form: { websocket: 1 } }));

  /** Opens vncwebsocket as the caller, trusting the certificate vncproxy answered with. */
  const connect = (cert: string, query: { port: number; vncticket: string }, as: Headers = ROOT, vmid = 100): Promise<Client | number> => {
    const search = new URLSearchParams({ port: String(query.port), vncticket: query.vncticket });
    const socket = new WebSocket(`wss://${origin()}/api2/json/nodes/pve1/qemu/${vmid}/vncwebsocket?${search.toString()}`, {
      ca: cert,
      headers: as,
    });
    clients.push(socket);
    return new Promise((resolve, reject) => {
      socket.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
        socket.terminate();
      });
      socket.once('open', () => {
        const client: Client = { socket, received: '', closed: null };
        socket.on('message', (data: Buffer) => (client.received += data.toString('latin1')));
        socket.on('close', (code, reason) => (client.closed = { code, reason: reason.toString() }));
        resolve(client);
      });
      socket.once('error', reject);
    });
  };
  const opened = (client: Client | number): Client => {
    if (typeof client === 'number') throw new Error(`the upgrade was refused with ${client}`);
    return client;
  };
  const taskStatus = async (upid: string) =>
    dataOf<{ status: string; exitstatus?: string }>(await call(t, 'GET', `/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`));
  const taskEnd = async (upid: string): Promise<string> => {
    let status = await taskStatus(upid);
    await waitFor(async () => (status = await taskStatus(upid)).status === 'stopped', { ...WAIT, what: `task ${upid} to end` });
    return status.exitstatus ?? '';
  };

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule, VncModule] });
    credential = await joinNode(t, 'pve1');
    agent = await onlineAgent(t, 'pve1', credential, {
      answer: (request) =>
        request.command !== 'guest.vnc.open' ? { failure: 'unknown-command', message: request.command } : (refusal ?? openStream(request)),
    });
    for (const vmid of [100, 101, 102]) {
      await t.app.get(GuestsRepository).insert({ vmid, type: 'qemu', node: 'pve1', config: { name: `vm${vmid}` }, lock: null });
      await t.app.get(GuestView).reload(vmid);
    }
    // VMs 100 and 101 run; 102 is stopped.
    const running = [100, 101].map((vmid) => ({
      vmid,
      type: 'qemu' as const,
      status: 'running' as const,
      pid: vmid,
      uptime: 1,
      cpu: 0,
      mem: 1024,
    }));
    const seq = agent.send({ type: 'report', payload: { kind: 'runtime', guests: running } });
    expect(await agent.next('ack')).toEqual({ type: 'ack', upTo: seq });
    await addUser(t, 'vmuser@pve', { password: PASSWORD });
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'vmuser@pve', roleid: 'PVEVMUser' });
    await grant(t, { path: '/', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
  });
  afterEach(() => {
    refusal = null;
    for (const socket of clients.splice(0)) socket.terminate();
    for (const stream of streams.splice(0)) stream.socket.terminate();
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  it("opens a console: PVE's answer, then the display's bytes both ways through the websocket; its vncproxy task lasts until the client closes", async () => {
    const answer = await proxy();
    expect(answer).toEqual({
      user: 'root@pam',
      ticket: expect.stringMatching(/^PVEVNC:[0-9A-F]{8}::/),
      cert: expect.stringContaining('BEGIN CERTIFICATE'),
      port: expect.any(Number),
      upid: expect.any(String),
    });
    expect(new X509Certificate(answer.cert).fingerprint256).toBe(new X509Certificate(t.cert).fingerprint256);
    expect(answer.upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:vncproxy:100:root@pam:$/);
    const [asked] = agent.received.filter((frame) => frame.type === 'request' && frame.command === 'guest.vnc.open');
    expect(asked).toMatchObject({ params: { vmid: 100, stream: expect.any(String) } });

    const client = opened(await connect(answer.cert, { port: answer.port, vncticket: answer.ticket }));
    await waitFor(() => client.received === 'RFB 003.008\n', { ...WAIT, what: "the display's version" });
    const bytes = Buffer.from([0x52, 0x46, 0x42, 0x00, 0xff, 0x0a]);
    client.socket.send(bytes, { binary: true });
    await waitFor(() => client.received === `RFB 003.008\n${bytes.toString('latin1')}`, { ...WAIT, what: 'the echo of the bytes' });
    expect(await taskStatus(answer.upid)).toMatchObject({ status: 'running' });

    client.socket.close(1000);
    await waitFor(() => streams[0]?.closed !== null, { ...WAIT, what: "the agent's stream to close" });
    expect(streams[0]?.closed).toEqual({ code: 1000, reason: 'the VNC client closed' });
    expect(await taskEnd(answer.upid)).toBe('OK');
  });

  it("closes the client's websocket when the display closes", async () => {
    const answer = await proxy();
    const client = opened(await connect(answer.cert, { port: answer.port, vncticket: answer.ticket }));
    streams[0]?.socket.close(1000, 'the VNC display closed');
    await waitFor(() => client.closed !== null, { ...WAIT, what: 'the client to be closed' });
    expect(client.closed).toEqual({ code: 1000, reason: 'the VNC display of VM 100 closed' });
    expect(await taskEnd(answer.upid)).toBe('OK');
  });

  it('takes a ticket once, only for its caller, VM and port, and only with their credentials and VM.Console', async () => {
    const root = await proxy();
    // Without credentials the ticket is not even looked at.
    expect(await connect(root.cert, { port: root.port, vncticket: root.ticket }, {})).toBe(401);
    // Presented by another caller who may use the console: used up, and its console ends.
    expect(await connect(root.cert, { port: root.port, vncticket: root.ticket }, VMUSER)).toBe(403);
    expect(await taskEnd(root.upid)).toBe('its VNC ticket was presented for another caller, VM or port');
    expect(await connect(root.cert, { port: root.port, vncticket: root.ticket })).toBe(403);

    const other = await proxy(101);
    expect(await connect(other.cert, { port: other.port, vncticket: other.ticket }, ROOT, 100)).toBe(403);
    const again = await proxy();
    expect(await connect(again.cert, { port: again.port === 5999 ? 5998 : again.port + 1, vncticket: again.ticket })).toBe(403);

    const vmuser = await proxy(100, VMUSER);
    expect(vmuser.user).toBe('vmuser@pve');
    expect(await connect(vmuser.cert, { port: vmuser.port, vncticket: vmuser.ticket }, AUDITOR)).toBe(403);
    expect(await connect(vmuser.cert, { port: vmuser.port, vncticket: 'PVEVNC:00000000::forged' }, VMUSER)).toBe(403);
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/101/vncproxy', { as: VMUSER }), 403, 'permission denied');
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/100/vncproxy', { as: AUDITOR }), 403, 'permission denied');
  });

  it("answers the node's refusal as vncproxy's error, and starts no task", async () => {
    refusal = { failure: 'unavailable', message: 'VNC is not available with the sim driver' };
    const before = await vncproxyTasks(t);
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/100/vncproxy'), 503, 'VNC is not available with the sim driver');
    expect(await vncproxyTasks(t)).toBe(before);
  });

  it('refuses a stopped VM, an unknown one, and a vncwebsocket request without the upgrade', async () => {
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/102/vncproxy'), 409, 'VM 102 is not running');
    expectError(await call(t, 'POST', '/nodes/pve1/qemu/103/vncproxy'), 404, 'VM 103 does not exist');
    expectError(
      await call(t, 'GET', '/nodes/pve1/qemu/100/vncwebsocket', { query: 'port=5900&vncticket=PVEVNC:00000000::x' }),
      400,
      "vncwebsocket is a websocket: send the request with 'Connection: Upgrade'",
    );
  });

  it("refuses an agent's stream that no console awaits", async () => {
    const socket = new WebSocket(`wss://${origin()}/agent/v1/streams/nobody-asked`, {
      ca: t.cert,
      headers: { authorization: `CorralNode pve1:${credential}` },
    });
    const status = await new Promise<number>((resolve, reject) => {
      socket.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
        socket.terminate();
      });
      socket.once('open', () => reject(new Error('the stream was accepted')));
      socket.once('error', reject);
    });
    expect(status).toBe(404);
  });
});

async function vncproxyTasks(t: TestApp): Promise<number> {
  const [row] = (await t.dataSource.query(`SELECT count(*)::int AS "count" FROM "tasks" WHERE "type" = 'vncproxy'`)) as { count: number }[];
  return row?.count ?? 0;
}
