import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QmpClient, QmpError } from './qmp-client.js';

/** What the fake QEMU does with each command it is sent: the lines to write back (events included). */
type Script = (command: { execute: string; arguments?: unknown; id?: unknown }) => object[];

const GREETING = { QMP: { version: { qemu: { micro: 0, minor: 2, major: 7 } }, capabilities: ['oob'] } };
const EVENT = { event: 'RESUME', timestamp: { seconds: 1, microseconds: 0 } };

describe('QmpClient', () => {
  let dir: string;
  let path: string;
  let server: Server;
  let received: string[];
  const sockets: Socket[] = [];

  /** A fake QEMU monitor: greets (unless told not to), then answers each line by `script`. */
  async function serve(script: Script, greet = true): Promise<void> {
    server = createServer((socket) => {
      sockets.push(socket);
      if (greet) socket.write(`${JSON.stringify(GREETING)}\n`);
      let buffer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        const lines = (buffer + chunk).split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) {
          const command = JSON.parse(line) as Parameters<Script>[0];
          received.push(command.execute);
          const answer = command.execute === 'qmp_capabilities' ? [{ return: {}, id: command.id }] : script(command);
          for (const reply of answer) socket.write(`${JSON.stringify(reply)}\n`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
  }

  const options = (signal = new AbortController().signal, timeoutMs = 5000) => ({ signal, timeoutMs });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-qmp-'));
    path = join(dir, 'qmp.sock');
    received = [];
  });
  afterEach(async () => {
    sockets.splice(0).forEach((socket) => socket.destroy());
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('negotiates capabilities after the greeting, then answers each command by its id, skipping events in between', async () => {
    await serve((command) => [EVENT, { return: { status: 'running', running: true }, id: command.id }, EVENT]);
    const client = await QmpClient.connect(path, options());
    await expect(client.execute('query-status')).resolves.toEqual({ status: 'running', running: true });
    await expect(client.execute('query-status')).resolves.toEqual({ status: 'running', running: true });
    client.close();
    expect(received).toEqual(['qmp_capabilities', 'query-status', 'query-status']);
  });

  it('sends the arguments and matches answers that arrive out of order to their commands', async () => {
    const held: { id: unknown; value: unknown }[] = [];
    await serve((command) => {
      held.push({ id: command.id, value: command.arguments });
      // Answers both once the second command arrives, the second first.
      return held.length < 2 ? [] : held.reverse().map(({ id, value }) => ({ return: value, id }));
    });
    const client = await QmpClient.connect(path, options());
    const [first, second] = await Promise.all([client.execute('echo', { n: 1 }), client.execute('echo', { n: 2 })]);
    client.close();
    expect([first, second]).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('rejects with a QmpError carrying the class and description of a refused command', async () => {
    await serve((command) => [{ error: { class: 'CommandNotFound', desc: 'The command nope has not been found' }, id: command.id }]);
    const client = await QmpClient.connect(path, options());
    const refused = client.execute('nope');
    await expect(refused).rejects.toBeInstanceOf(QmpError);
    await expect(refused).rejects.toMatchObject({ qmpClass: 'CommandNotFound', message: 'The command nope has not been found' });
    client.close();
  });

  it('fails when no greeting comes in time (QEMU serves another client)', async () => {
    await serve(() => [], false);
    await expect(QmpClient.connect(path, options(undefined, 200))).rejects.toThrow('the QMP greeting got no answer within 0.2 s');
  });

  it('fails a command that gets no answer in time, and the connection still serves the next one', async () => {
    await serve((command) => (command.execute === 'hang' ? [] : [{ return: 'pong', id: command.id }]));
    const client = await QmpClient.connect(path, options(undefined, 200));
    await expect(client.execute('hang')).rejects.toThrow('QMP hang got no answer within 0.2 s');
    await expect(client.execute('ping')).resolves.toBe('pong');
    client.close();
  });

  it('fails what waits with the reason when the signal is aborted', async () => {
    await serve(() => []);
    const controller = new AbortController();
    const client = await QmpClient.connect(path, options(controller.signal));
    const waiting = client.execute('hang');
    controller.abort(new Error('the request timed out'));
    await expect(waiting).rejects.toThrow('the request timed out');
    client.close();
  });

  it('fails what waits when QEMU closes the connection, and refuses commands afterwards', async () => {
    await serve(() => {
      sockets.forEach((socket) => socket.end());
      return [];
    });
    const client = await QmpClient.connect(path, options());
    await expect(client.execute('quit')).rejects.toThrow('QEMU closed the QMP connection');
    await expect(client.execute('query-status')).rejects.toThrow('QEMU closed the QMP connection');
  });

  it('fails to connect, saying why, when nothing listens on the socket', async () => {
    await serve(() => []);
    await expect(QmpClient.connect(join(dir, 'missing.sock'), options())).rejects.toThrow(/^QMP connection failed: connect ENOENT/);
  });
});
