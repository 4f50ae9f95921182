import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@corral/testing';
import { CommandFailure } from '../../../host/command-failure.js';
import { qgaExecute } from './qga-client.js';

/*
 * The QGA client against a fake channel: a unix socket server that plays the guest agent's part
 * (or none), as QEMU's chardev hands the bytes through.
 */

type Agent = (request: Record<string, unknown>, socket: Socket) => void;

/** Answers as qemu-ga does: the sync with 0xFF and its id, every other command through `agent`. */
const guestAgent =
  (answer: (request: Record<string, unknown>) => unknown, options: { noise?: string } = {}): Agent =>
  (request, socket) => {
    if (request['execute'] === 'guest-sync-delimited') {
      const id = (request['arguments'] as { id: number }).id;
      socket.write(
        Buffer.concat([Buffer.from(options.noise ?? ''), Buffer.from([0xff]), Buffer.from(`${JSON.stringify({ return: id })}\n`)]),
      );
      return;
    }
    const reply = answer(request);
    if (reply !== undefined) socket.write(`${JSON.stringify(reply)}\n`);
  };

describe('qgaExecute', () => {
  let dir: string;
  let server: Server | undefined;
  let received: Record<string, unknown>[];
  let resets: number;
  const signal = new AbortController().signal;
  const options = { signal, syncMs: 300, commandMs: 300 };
  const socketPath = () => join(dir, '100.qga');

  const serve = async (agent: Agent | undefined) => {
    server = createServer((socket) => {
      let pending = '';
      socket.on('data', (chunk: Buffer) => {
        const bytes = [...chunk];
        resets += bytes.filter((byte) => byte === 0xff).length;
        pending += Buffer.from(bytes.filter((byte) => byte !== 0xff)).toString('utf8');
        for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
          const request = JSON.parse(pending.slice(0, end)) as Record<string, unknown>;
          pending = pending.slice(end + 1);
          received.push(request);
          agent?.(request, socket);
        }
      });
    });
    server.listen(socketPath());
    await new Promise((resolve) => server?.once('listening', resolve));
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-qga-'));
    received = [];
    resets = 0;
  });
  afterEach(async () => {
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('flushes, syncs, then sends the command with its arguments and resolves with its return value', async () => {
    await serve(guestAgent((request) => ({ return: { pid: 42, echo: request['arguments'] } })));
    const args = { path: '/bin/true', arg: [], 'capture-output': true };
    await expect(qgaExecute(socketPath(), 'guest-exec', args, options)).resolves.toStrictEqual({ pid: 42, echo: args });
    expect(resets).toBe(1);
    expect(received.map((request) => request['execute'])).toStrictEqual(['guest-sync-delimited', 'guest-exec']);
  });

  it("drops what a previous client left in the channel before the sync's 0xFF", async () => {
    await serve(guestAgent(() => ({ return: 'thawed' }), { noise: '{"return": {"stale": true}}\n{"ret' }));
    await expect(qgaExecute(socketPath(), 'guest-fsfreeze-status', undefined, options)).resolves.toBe('thawed');
  });

  it("fails with the guest agent's own error as PVE words it", async () => {
    await serve(guestAgent(() => ({ error: { class: 'GenericError', desc: "Invalid parameter 'pid'" } })));
    const run = qgaExecute(socketPath(), 'guest-exec-status', { pid: 9 }, options);
    await expect(run).rejects.toThrow(new CommandFailure('failed', "Agent error: Invalid parameter 'pid'"));
  });

  it('says the guest agent is not running when nothing answers the sync, and closes the connection', async () => {
    await serve(undefined);
    const run = qgaExecute(socketPath(), 'guest-ping', undefined, options);
    await expect(run).rejects.toMatchObject({ code: 'unavailable', message: 'QEMU guest agent is not running' });
    expect(received.map((request) => request['execute'])).toStrictEqual(['guest-sync-delimited']);
    const connections = () =>
      new Promise<number>((resolve, reject) => server?.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    await waitFor(async () => (await connections()) === 0, { timeoutMs: 5000, what: 'the client to close its connection' });
  });

  it('says the guest agent is not running when the VM has no channel', async () => {
    await expect(qgaExecute(socketPath(), 'guest-ping', undefined, options)).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/^QEMU guest agent is not running \(.*ENOENT/),
    });
  });

  it('times out a command the guest agent synced for but never answers', async () => {
    await serve(guestAgent(() => undefined));
    await expect(qgaExecute(socketPath(), 'guest-get-fsinfo', undefined, options)).rejects.toMatchObject({
      code: 'timeout',
      message: 'the QEMU guest agent did not answer guest-get-fsinfo within 0.3 s',
    });
  });

  it('answers null for guest-shutdown once sent, since QGA sends no reply to it', async () => {
    await serve(guestAgent(() => undefined));
    await expect(qgaExecute(socketPath(), 'guest-shutdown', undefined, options)).resolves.toBeNull();
    await waitFor(() => received.length === 2, { timeoutMs: 5000, what: 'the guest agent to receive guest-shutdown' });
    expect(received.map((request) => request['execute'])).toStrictEqual(['guest-sync-delimited', 'guest-shutdown']);
  });
});
