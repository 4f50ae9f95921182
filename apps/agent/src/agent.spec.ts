import { CLOSE_CODES, COMMANDS, type CommandHandlers } from '@corral/protocol';
import { waitFor } from '@corral/testing';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type TLSSocket } from 'node:tls';
import { selfSignedIdentity } from '@corral/testing';
import { ControlPlanes } from './connection/control-planes.js';
import { CREDENTIAL, NODE, TestHub, type HubConnection } from '../test-support/test-hub.js';
import { Agent, type AgentTiming } from './agent.js';
import { guestCommands } from './commands/guests/guest-commands.js';
import type { CommandContext } from './drivers/command-context.js';
import { SimDriver } from './drivers/sim/sim-driver.js';
import { HaLease } from './ha/ha-lease.js';
import { CommandFailure } from './host/command-failure.js';
import { openHost } from './host/host.js';
import { jsonLogger } from './logging/logger.js';
import { RuntimeReports } from './reports/runtime-reports.js';

jest.setTimeout(60_000);

const WAIT = { timeoutMs: 15_000 };
const INVENTORY = {
  cpu: 0.25,
  maxcpu: 2,
  mem: 1024,
  maxmem: 4096,
  uptime: 100,
  disk: 10,
  maxdisk: 100,
  os: 'Debian GNU/Linux 12 (bookworm)',
  kernel: '6.1.0-40-amd64',
};
const UPID = 'UPID:pve1:0000A1B2:0013C4D5:6836F1A0:aptupdate::root@pam:';

/** A door a fake command waits behind until the test opens it. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Every command fails as "not faked" except the ones a test gives. */
function fakeHandlers(given: Partial<CommandHandlers<CommandContext>>): CommandHandlers<CommandContext> {
  const notFaked = Object.fromEntries(
    Object.keys(COMMANDS).map((name) => [name, () => Promise.reject(new Error(`${name} is not faked in this test`))]),
  );
  return { ...notFaked, ...given } as CommandHandlers<CommandContext>;
}

/** Fakes used across the tests: a quick command with output, and one that runs until its gate opens or its signal fires. */
function commonHandlers() {
  const calls = { dnsGet: 0, aptUpdate: 0 };
  const aptGate = gate();
  const aborted: AbortSignal[] = [];
  const handlers = fakeHandlers({
    'node.dns.get': async (_params, context) => {
      calls.dnsGet += 1;
      context.log('reading /etc/resolv.conf');
      context.log('two servers\nfound');
      return { search: ['example.com'], servers: ['192.0.2.53', '2001:db8::53'] };
    },
    'node.apt.update': (_params, context) => {
      calls.aptUpdate += 1;
      return new Promise((resolve, reject) => {
        void aptGate.opened.then(() => resolve(null));
        context.signal.addEventListener('abort', () => {
          aborted.push(context.signal);
          reject(new Error('killed'));
        });
      });
    },
    'node.dns.set': async () => {
      throw new CommandFailure('unavailable', 'resolv.conf is managed by systemd-resolved');
    },
    'node.apt.changelog': async () => {
      throw new Error('apt-get changelog exited with code 100');
    },
    'node.status': async () => ({ bad: Number.NaN }) as never,
  });
  return { handlers, calls, aptGate, aborted };
}

interface Harness {
  readonly agent: Agent;
  readonly exit: Promise<number>;
  readonly lines: Record<string, unknown>[];
}

const harnesses: Harness[] = [];
const hubs: TestHub[] = [];

function startAgent(
  target: { url: URL | URL[]; fingerprint: string },
  handlers: CommandHandlers<CommandContext>,
  timing: Partial<AgentTiming> = {},
  inventory: typeof INVENTORY = INVENTORY,
  runtime?: RuntimeReports,
  lease?: HaLease,
): Harness {
  const lines: Record<string, unknown>[] = [];
  const agent = new Agent({
    config: { fingerprint: target.fingerprint, node: NODE, credential: CREDENTIAL },
    controlPlanes: new ControlPlanes(Array.isArray(target.url) ? target.url : [target.url]),
    version: '0.1.0',
    capabilities: ['nft', 'lvm'],
    handlers,
    inventory: { read: async () => ({ ...inventory }) },
    runtime,
    lease,
    logger: jsonLogger((line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    timing: { backoffMinMs: 10, backoffMaxMs: 100, ackWaitMs: 300, logFlushMs: 10, ...timing },
  });
  const harness = { agent, exit: agent.run(), lines };
  harnesses.push(harness);
  return harness;
}

async function startHub(options?: Parameters<typeof TestHub.start>[0]): Promise<TestHub> {
  const hub = await TestHub.start(options);
  hubs.push(hub);
  return hub;
}

/** A hub and an agent, the first connection welcomed. */
async function connected(timing: Partial<AgentTiming> = {}) {
  const hub = await startHub();
  const fakes = commonHandlers();
  const harness = startAgent(hub, fakes.handlers, timing);
  const connection = await hub.connection(0);
  connection.welcome();
  await connection.count('report', 1);
  return { hub, harness, connection, ...fakes };
}

const numbered = (connection: HubConnection) => connection.frames.flatMap((frame) => ('seq' in frame ? [frame] : []));

afterEach(async () => {
  for (const harness of harnesses.splice(0)) {
    harness.agent.stop();
    await harness.exit;
    // Secrets are never logged.
    expect(JSON.stringify(harness.lines)).not.toContain(CREDENTIAL);
  }
  for (const hub of hubs.splice(0)) {
    for (const connection of hub.connections) expect(connection.invalid).toEqual([]);
    await hub.close();
  }
});

describe('the agent and the control plane (libs/protocol)', () => {
  it("dials /agent/v1 with the node's credential and says hello first: protocol, version, node, session, capabilities", async () => {
    const hub = await startHub();
    const { agent } = startAgent(hub, commonHandlers().handlers);
    const connection = await hub.connection(0);
    expect(connection.authorization).toBe(`CorralNode ${NODE}:${CREDENTIAL}`);
    await waitFor(() => connection.frames.length > 0, { ...WAIT, what: 'hello' });
    expect(connection.frames[0]).toEqual({
      type: 'hello',
      protocol: 1,
      agentVersion: '0.1.0',
      node: NODE,
      session: agent.session,
      capabilities: ['nft', 'lvm'],
      requests: [],
    });
  });

  it('after welcome sends a heartbeat every heartbeatMs and reports the inventory once while it does not change', async () => {
    const { connection } = await connected();
    await connection.count('heartbeat', 5);
    expect(connection.frames[0]?.type).toBe('hello');
    expect(connection.ofType('report')).toEqual([{ type: 'report', seq: 1, payload: { kind: 'inventory', ...INVENTORY } }]);
  });

  it('numbers its heartbeats across reconnects and hands each lease frame to the HA lease', async () => {
    const hub = await startHub();
    const granted: number[] = [];
    const lease = new HaLease({
      fence: { fence: () => undefined, lift: () => undefined, cover: () => undefined },
      logger: jsonLogger(() => undefined),
    });
    const grant = lease.grant.bind(lease);
    lease.grant = (frame) => {
      granted.push(frame.upTo);
      grant(frame);
    };
    startAgent(hub, commonHandlers().handlers, {}, INVENTORY, undefined, lease);
    const first = await hub.connection(0);
    first.welcome();
    await first.count('heartbeat', 2);
    first.send({ type: 'lease', upTo: 2, ttlMs: 30_000, guests: [] });
    await waitFor(() => granted.length === 1, { ...WAIT, what: 'the lease to be granted' });
    first.socket.terminate();
    const again = await hub.connection(1);
    again.welcome();
    await again.count('heartbeat', 1);
    const numbers = [...first.ofType('heartbeat'), ...again.ofType('heartbeat')].map((frame) => frame.n);
    expect(numbers).toEqual(numbers.map((_n, index) => index + 1));
    expect(granted).toEqual([2]);
  });

  it('reports the inventory again when it changed', async () => {
    const hub = await startHub();
    const inventory = { ...INVENTORY };
    startAgent(hub, commonHandlers().handlers, {}, inventory);
    const connection = await hub.connection(0);
    connection.welcome();
    await connection.count('report', 1);
    inventory.uptime = 105;
    await connection.count('report', 2);
    expect(connection.ofType('report').map((frame) => frame.payload)).toEqual([
      { kind: 'inventory', ...INVENTORY },
      { kind: 'inventory', ...INVENTORY, uptime: 105 },
    ]);
  });

  it('runs a request: its output lines as numbered log frames, then the result with the next seq', async () => {
    const { connection, calls } = await connected();
    connection.request('r1', 'node.dns.get');
    expect(await connection.answer('r1')).toEqual({
      type: 'result',
      seq: expect.any(Number),
      id: 'r1',
      result: { search: ['example.com'], servers: ['192.0.2.53', '2001:db8::53'] },
    });
    const logs = connection.ofType('log').filter((frame) => frame.id === 'r1');
    expect(logs.flatMap((frame) => frame.lines)).toEqual([
      { n: 1, text: 'reading /etc/resolv.conf' },
      { n: 2, text: 'two servers' },
      { n: 3, text: 'found' },
    ]);
    expect(numbered(connection).map((frame) => frame.seq)).toEqual(numbered(connection).map((_, index) => index + 1));
    expect(numbered(connection).at(-1)?.type).toBe('result');
    expect(calls.dnsGet).toBe(1);
  });

  it('answers refusals and failures with failure frames and their codes, keeping the connection', async () => {
    const { connection } = await connected();
    connection.request('unknown', 'node.frobnicate');
    connection.request('invalid', 'node.dns.set', { servers: ['not-an-address'], search: [] });
    connection.request('refused', 'node.dns.set', { servers: ['192.0.2.53'], search: [] });
    connection.request('broken', 'node.apt.changelog', { name: 'bash' });
    connection.request('not-json', 'node.status');
    expect(await connection.answer('unknown')).toEqual(
      expect.objectContaining({ type: 'failure', code: 'unknown-command', message: "unknown command 'node.frobnicate'" }),
    );
    expect(await connection.answer('invalid')).toEqual(
      expect.objectContaining({
        type: 'failure',
        code: 'invalid-params',
        message: expect.stringMatching(/^node\.dns\.set: params\.servers\[0\]: /),
      }),
    );
    expect(await connection.answer('refused')).toEqual(
      expect.objectContaining({ type: 'failure', code: 'unavailable', message: 'resolv.conf is managed by systemd-resolved' }),
    );
    expect(await connection.answer('broken')).toEqual(
      expect.objectContaining({ type: 'failure', code: 'failed', message: 'apt-get changelog exited with code 100' }),
    );
    expect(await connection.answer('not-json')).toEqual(
      expect.objectContaining({
        type: 'failure',
        code: 'failed',
        message: expect.stringMatching(/^node\.status returned a result that cannot be sent: /),
      }),
    );
    expect(connection.closed).toBeUndefined();
  });

  it('aborts a command at its timeoutMs and answers timeout', async () => {
    const { connection, aborted } = await connected();
    connection.request('slow', 'node.apt.update', {}, { timeoutMs: 50 });
    expect(await connection.answer('slow')).toEqual(
      expect.objectContaining({ type: 'failure', code: 'timeout', message: 'node.apt.update did not finish within 50 ms' }),
    );
    expect(aborted).toHaveLength(1);
  });

  it('aborts a command when the control plane cancels its request and answers failed; a cancel of a request not running changes nothing', async () => {
    const { harness, connection, aborted } = await connected();
    connection.request('stopped', 'node.apt.update', {}, { upid: UPID });
    await waitFor(() => harness.lines.some((line) => line.msg === 'command started' && line.id === 'stopped'), {
      ...WAIT,
      what: 'the command to start',
    });
    connection.send({ type: 'cancel', id: 'stopped' });
    expect(await connection.answer('stopped')).toEqual(
      expect.objectContaining({ type: 'failure', code: 'failed', message: 'stopped by the control plane' }),
    );
    expect(aborted).toHaveLength(1);
    connection.send({ type: 'cancel', id: 'stopped' });
    connection.send({ type: 'cancel', id: 'never-sent' });
    connection.request('after', 'node.dns.get');
    expect(await connection.answer('after')).toEqual(expect.objectContaining({ type: 'result' }));
    expect(connection.ofType('failure').filter((frame) => frame.id === 'stopped')).toHaveLength(1);
    expect(connection.closed).toBeUndefined();
  });

  it('runs a request id once, and a task UPID once, answering its second request with the same outcome', async () => {
    const { connection, calls, aptGate } = await connected();
    connection.request('r1', 'node.dns.get');
    connection.request('r1', 'node.dns.get');
    connection.request('t1', 'node.apt.update', {}, { upid: UPID });
    connection.request('t2', 'node.apt.update', {}, { upid: UPID });
    connection.request('marker', 'node.dns.get');
    await connection.answer('marker');
    aptGate.open();
    expect(await connection.answer('t1')).toEqual(expect.objectContaining({ type: 'result', result: null }));
    expect(await connection.answer('t2')).toEqual(expect.objectContaining({ type: 'result', result: null }));
    expect(connection.ofType('result').filter((frame) => frame.id === 'r1')).toHaveLength(1);
    expect(calls).toEqual({ dnsGet: 2, aptUpdate: 1 });
  });

  it('runs each command of one task once: a second command with the same UPID is a step of it, not a repeat', async () => {
    const { connection, calls, aptGate } = await connected();
    aptGate.open();
    connection.request('s1', 'node.apt.update', {}, { upid: UPID });
    await connection.answer('s1');
    connection.request('s2', 'node.dns.get', {}, { upid: UPID });
    expect(await connection.answer('s2')).toEqual(expect.objectContaining({ type: 'result' }));
    expect(calls).toEqual({ dnsGet: 1, aptUpdate: 1 });
  });

  it('keeps frames until acknowledged and re-sends the rest in order after a dropped connection, with hello.lastAck', async () => {
    const { hub, harness, connection } = await connected();
    connection.request('r1', 'node.dns.get');
    const first = await connection.answer('r1');
    connection.send({ type: 'ack', upTo: first.seq });
    connection.request('r2', 'node.dns.get');
    const second = await connection.answer('r2');
    connection.socket.terminate();

    const again = await hub.connection(1);
    await waitFor(() => again.frames.length > 0, { ...WAIT, what: 'hello' });
    // r2's answer is not acknowledged: the hello names it, and not r1 (acknowledged).
    expect(again.frames[0]).toEqual(
      expect.objectContaining({ type: 'hello', session: harness.agent.session, lastAck: first.seq, requests: ['r2'] }),
    );
    again.welcome();
    await again.answer('r2');
    const resent = numbered(again).filter((frame) => frame.seq <= second.seq);
    // Everything after the ack, in order, with its old numbers: r2's log lines, then its result.
    expect(resent).toEqual(numbered(connection).filter((frame) => frame.seq > first.seq));
    expect(resent.at(-1)).toEqual(second);
    again.request('r3', 'node.dns.get');
    expect((await again.answer('r3')).seq).toBeGreaterThan(second.seq);
  });

  it('closes with invalidFrame on a frame that fails its schema or is not JSON, then reconnects', async () => {
    const { hub, connection, harness } = await connected();
    connection.send({ type: 'request', id: 'r1', command: 'node.dns.get', params: {}, timeoutMs: -1 });
    expect(await connection.whenClosed()).toEqual({
      code: CLOSE_CODES.invalidFrame,
      reason: 'timeoutMs: Too small: expected number to be >=1',
    });
    const again = await hub.connection(1);
    again.socket.send('{not json');
    expect(await again.whenClosed()).toEqual({ code: CLOSE_CODES.invalidFrame, reason: 'a message is not JSON' });
    expect(harness.lines).toContainEqual(expect.objectContaining({ level: 'error', code: CLOSE_CODES.invalidFrame }));
    await hub.connection(2);
  });

  it('closes with unexpectedFrame on a request before welcome and on an ack beyond what it sent', async () => {
    const hub = await startHub();
    startAgent(hub, commonHandlers().handlers);
    const early = await hub.connection(0);
    early.request('r1', 'node.dns.get');
    expect(await early.whenClosed()).toEqual({ code: CLOSE_CODES.unexpectedFrame, reason: 'request before welcome' });
    const again = await hub.connection(1);
    again.welcome();
    await again.count('report', 1);
    again.send({ type: 'ack', upTo: 99 });
    expect(await again.whenClosed()).toEqual({ code: CLOSE_CODES.unexpectedFrame, reason: 'ack 99 is beyond the last frame sent (1)' });
  });

  it('closes and tries again when no welcome comes', async () => {
    const hub = await startHub();
    startAgent(hub, commonHandlers().handlers, { welcomeTimeoutMs: 200 });
    const silent = await hub.connection(0);
    expect(await silent.whenClosed()).toEqual({ code: 1000, reason: 'no welcome within 200 ms' });
    await hub.connection(1);
  });
});

describe('several control-plane replicas', () => {
  it('goes on to the next URL at once when its replica goes away, in the same session, and learns the replicas a welcome names', async () => {
    const first = await startHub();
    const second = await startHub({ identity: first.identity });
    const third = await startHub({ identity: first.identity });
    // Backoff long enough that only an immediate move can reach the next replica within the wait.
    const { agent, lines } = startAgent({ url: [first.url, second.url], fingerprint: first.fingerprint }, commonHandlers().handlers, {
      backoffMinMs: 60_000,
      backoffMaxMs: 60_000,
    });
    const onFirst = await first.connection(0);
    onFirst.welcome(100, NODE, [first.url.origin, third.url.origin]);
    await onFirst.count('report', 1);
    onFirst.socket.terminate();
    const onSecond = await second.connection(0);
    await waitFor(() => onSecond.frames.length > 0, { ...WAIT, what: 'hello on the second replica' });
    expect(onSecond.frames[0]).toEqual(expect.objectContaining({ type: 'hello', session: agent.session }));
    onSecond.welcome();
    await onSecond.count('heartbeat', 1);
    onSecond.socket.terminate();
    // The replica the first welcome named, after the configured ones.
    const onThird = await third.connection(0);
    onThird.welcome();
    await onThird.count('heartbeat', 1);
    expect(lines.filter((line) => line['msg'] === 'disconnected').map((line) => [line['retryInMs'], line['next']])).toEqual([
      [0, second.url.origin],
      [0, third.url.origin],
    ]);
  });

  it('waits its backoff only once every URL failed', async () => {
    const hub = await startHub();
    const gone = await startHub({ identity: hub.identity });
    await gone.close();
    const { lines } = startAgent({ url: [gone.url, hub.url], fingerprint: hub.fingerprint }, commonHandlers().handlers, {
      backoffMinMs: 60_000,
      backoffMaxMs: 60_000,
    });
    (await hub.connection(0)).welcome();
    const failed = lines.filter((line) => line['msg'] === 'cannot connect to the control plane');
    expect(failed.map((line) => [line['url'], line['retryInMs']])).toEqual([[gone.url.origin, 0]]);
  });
});

describe('when an operator must act', () => {
  it('stops with exit code 1 when the control plane refuses the credential at the upgrade', async () => {
    const hub = await startHub({ refuseWith: 401 });
    const { exit, lines } = startAgent(hub, commonHandlers().handlers);
    expect(await exit).toBe(1);
    expect(hub.upgrades).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: expect.stringMatching(/refused this node's credential \(.*HTTP 401.*\): join the node again with 'corral agent join'/),
      }),
    );
  });

  it.each([
    [CLOSE_CODES.unsupportedProtocol, 'protocol 2 only', /does not speak protocol 1: upgrade this agent/],
    [CLOSE_CODES.nodeMismatch, 'the credential is pve2', /does not accept this agent as node 'pve1'/],
  ])('stops with exit code 1 when the control plane closes with %s', async (code, reason, message) => {
    const hub = await startHub();
    const { exit, lines } = startAgent(hub, commonHandlers().handlers);
    (await hub.connection(0)).socket.close(code, reason);
    expect(await exit).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', msg: expect.stringMatching(message), code, reason, by: 'control plane' }),
    );
    expect(hub.connections).toHaveLength(1);
  });

  it('stops when welcomed as another node, closing with nodeMismatch', async () => {
    const hub = await startHub();
    const { exit } = startAgent(hub, commonHandlers().handlers);
    const connection = await hub.connection(0);
    connection.welcome(100, 'pve2');
    expect(await connection.whenClosed()).toEqual({ code: CLOSE_CODES.nodeMismatch, reason: "welcomed as node 'pve2', not 'pve1'" });
    expect(await exit).toBe(1);
  });
});

/** A TLS server that records every byte a client sends after the handshake: a control plane stand-in that should hear nothing. */
async function listeningTlsServer() {
  const identity = await selfSignedIdentity();
  const received: Buffer[] = [];
  const sockets: Socket[] = [];
  const server = createServer({ key: identity.key, cert: identity.cert }, (socket: TLSSocket) => {
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined);
  });
  server.on('connection', (socket: Socket) => sockets.push(socket));
  server.on('tlsClientError', () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`),
    fingerprint: identity.fingerprint,
    received: () => Buffer.concat(received).toString('latin1'),
    sockets,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe("the pinned control plane's certificate", () => {
  it('is checked before the upgrade request is written: a server with another certificate never sees the credential', async () => {
    const impostor = await listeningTlsServer();
    try {
      const other = await selfSignedIdentity();
      const { lines, agent, exit } = startAgent({ url: impostor.url, fingerprint: other.fingerprint }, commonHandlers().handlers);
      await waitFor(
        () => lines.filter((line) => line.msg === "the control plane's certificate is not the pinned one: nothing was sent").length >= 2,
        { ...WAIT, what: 'two refused attempts' },
      );
      agent.stop();
      expect(await exit).toBe(0);
      await waitFor(() => impostor.sockets.every((socket) => socket.closed), { ...WAIT, what: 'the connections to close' });
      expect(lines).toContainEqual(expect.objectContaining({ presented: impostor.fingerprint, expected: other.fingerprint }));
      expect(impostor.sockets.length).toBeGreaterThanOrEqual(2);
      expect(impostor.received()).toBe('');

      // The same server, pinned right, gets the upgrade request with the credential: the check above could fail.
      startAgent(impostor, commonHandlers().handlers);
      await waitFor(() => impostor.received().includes(`CorralNode ${NODE}:${CREDENTIAL}`), { ...WAIT, what: 'the upgrade request' });
      expect(impostor.received()).toMatch(/^GET \/agent\/v1 HTTP\/1\.1\r\n/);
    } finally {
      impostor.close();
    }
  });
});

describe('stopping (SIGTERM, SIGINT)', () => {
  it('refuses new requests, lets running commands finish, then closes with 1001 and exit code 0', async () => {
    const { harness, connection, aptGate } = await connected();
    connection.acking = true;
    connection.request('long', 'node.apt.update');
    await waitFor(() => harness.lines.some((line) => line.msg === 'command started' && line.id === 'long'), {
      ...WAIT,
      what: 'the command to start',
    });
    harness.agent.stop();
    connection.request('late', 'node.dns.get');
    expect(await connection.answer('late')).toEqual(
      expect.objectContaining({ type: 'failure', code: 'unavailable', message: 'the agent is shutting down' }),
    );
    expect(connection.closed).toBeUndefined();
    aptGate.open();
    expect(await connection.answer('long')).toEqual(expect.objectContaining({ type: 'result', result: null }));
    expect(await connection.whenClosed()).toEqual({ code: 1001, reason: 'agent stopping' });
    expect(await harness.exit).toBe(0);
  });

  it('aborts commands still running after drainTimeoutMs and answers them failed', async () => {
    const { harness, connection, aborted } = await connected({ drainTimeoutMs: 100 });
    connection.acking = true;
    connection.request('long', 'node.apt.update');
    await waitFor(() => harness.lines.some((line) => line.msg === 'command started'), { ...WAIT, what: 'the command to start' });
    harness.agent.stop();
    expect(await connection.answer('long')).toEqual(
      expect.objectContaining({ type: 'failure', code: 'failed', message: 'the agent stopped before the command finished' }),
    );
    expect(aborted).toHaveLength(1);
    expect(await connection.whenClosed()).toEqual({ code: 1001, reason: 'agent stopping' });
    expect(await harness.exit).toBe(0);
  });
});

describe("the guests' run state", () => {
  it('is reported once welcomed, and a guest command answers after the runtime report and the event it caused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'corral-agent-guests-'));
    try {
      const sim = new SimDriver(await openHost(dir), { stateDir: dir, speed: 0 });
      const runtime = new RuntimeReports(
        sim,
        jsonLogger(() => undefined),
      );
      const hub = await startHub();
      startAgent(hub, fakeHandlers(guestCommands(sim, runtime)), {}, INVENTORY, runtime);
      const connection = await hub.connection(0);
      connection.welcome();
      const runtimeReports = () => connection.ofType('report').filter((frame) => frame.payload.kind === 'runtime');
      await waitFor(() => runtimeReports().length === 1, { ...WAIT, what: 'the first runtime report' });
      expect(runtimeReports()[0]?.payload).toEqual({ kind: 'runtime', guests: [] });

      const guest = {
        type: 'qemu',
        vmid: 100,
        name: 'web1',
        memoryMiB: 512,
        cores: 1,
        sockets: 1,
        template: false,
        nics: [],
        volumes: [],
        config: {},
      };
      connection.request('start', 'guest.start', { guest });
      const answer = await connection.answer('start');
      const guestFrames = numbered(connection).filter(
        (frame) => frame.type === 'event' || frame.type === 'result' || (frame.type === 'report' && frame.payload.kind === 'runtime'),
      );
      expect(guestFrames.slice(1)).toEqual([
        { type: 'event', seq: expect.any(Number), event: 'vm-start', vmid: 100, timestamp: expect.any(String) },
        {
          type: 'report',
          seq: expect.any(Number),
          payload: {
            kind: 'runtime',
            guests: [expect.objectContaining({ vmid: 100, type: 'qemu', status: 'running', pid: expect.any(Number) })],
          },
        },
        answer,
      ]);
      expect(answer).toEqual(expect.objectContaining({ type: 'result', id: 'start', result: null }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
