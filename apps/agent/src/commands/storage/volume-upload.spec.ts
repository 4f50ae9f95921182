import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import type { CommandContext } from '../../drivers/command-context.js';
import { openHost, type Host } from '../../host/host.js';
import { upload } from './volume-upload.js';

const FILE = randomBytes(300_000);
const SHA256 = createHash('sha256').update(FILE).digest('hex');

/** The control plane's end of an upload: what it sends on the stream the agent opens. */
type Sender = (socket: WebSocket) => void;

describe('storage.upload through a byte stream', () => {
  let dir: string;
  let host: Host;
  let server: WebSocketServer;
  let sender: Sender = () => undefined;
  const lines: string[] = [];
  const context: CommandContext = { signal: new AbortController().signal, log: (line) => lines.push(line) };
  const opened: WebSocket[] = [];
  const openStream = async (stream: string) => {
    const socket = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/streams/${stream}`);
    opened.push(socket);
    await once(socket, 'open');
    return socket;
  };
  const inChunks = (socket: WebSocket, bytes: Buffer) => {
    for (let at = 0; at < bytes.length; at += 65536) socket.send(bytes.subarray(at, at + 65536), { binary: true });
  };
  const run = (checksum?: { algorithm: 'sha256' | 'md5'; digest: string }) =>
    upload(
      host,
      openStream,
      { stream: 'up-1', path: '/var/lib/vz', mountpoint: false, file: 'template/iso/debian.iso', ...(checksum ? { checksum } : {}) },
      context,
    );
  const folder = () => readdir(join(dir, 'var/lib/vz/template/iso'));

  beforeAll(async () => {
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    // As the control plane: nothing is sent before the agent says it listens.
    server.on('connection', (socket) => socket.once('message', () => sender(socket)));
  });
  afterAll(async () => {
    for (const socket of [...server.clients, ...opened]) socket.terminate();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-upload-'));
    host = await openHost(dir);
    lines.length = 0;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('stores the file once its end says all of it came and its checksum matches, and logs as PVE', async () => {
    sender = (socket) => {
      inChunks(socket, FILE);
      socket.send(JSON.stringify({ size: FILE.length }));
    };
    await expect(run({ algorithm: 'sha256', digest: SHA256 })).resolves.toEqual({ size: FILE.length });
    expect(await folder()).toEqual(['debian.iso']);
    expect((await readFile(join(dir, 'var/lib/vz/template/iso/debian.iso'))).equals(FILE)).toBe(true);
    expect(lines).toEqual(['target file: /var/lib/vz/template/iso/debian.iso', `file size is: ${FILE.length}`, 'sha256 checksum verified']);
  });

  it('leaves no file behind when the checksum does not match', async () => {
    sender = (socket) => {
      inChunks(socket, FILE);
      socket.send(JSON.stringify({ size: FILE.length }));
    };
    await expect(run({ algorithm: 'md5', digest: '0'.repeat(32) })).rejects.toThrow(
      `checksum mismatch: got '${createHash('md5').update(FILE).digest('hex')}' != expect '${'0'.repeat(32)}'`,
    );
    expect(await folder()).toEqual([]);
  });

  it('leaves no file behind when the stream closes before its end, or announces another size', async () => {
    sender = (socket) => {
      inChunks(socket, FILE.subarray(0, 100_000));
      socket.close(1011, 'the client went away');
    };
    await expect(run()).rejects.toThrow('the upload stopped after 100000 bytes: the client went away');
    expect(await folder()).toEqual([]);

    sender = (socket) => {
      inChunks(socket, FILE);
      socket.send(JSON.stringify({ size: FILE.length + 1 }));
    };
    await expect(run()).rejects.toThrow(`the upload announced ${FILE.length + 1} bytes but ${FILE.length} arrived`);
    expect(await folder()).toEqual([]);
  });

  it('replaces a file of the same name only with a complete one', async () => {
    sender = (socket) => socket.send(JSON.stringify({ size: 0 }));
    await expect(run()).resolves.toEqual({ size: 0 });
    sender = (socket) => {
      inChunks(socket, FILE);
      socket.send(JSON.stringify({ size: FILE.length }));
    };
    await expect(run()).resolves.toEqual({ size: FILE.length });
    expect((await readFile(join(dir, 'var/lib/vz/template/iso/debian.iso'))).length).toBe(FILE.length);
  });
});
