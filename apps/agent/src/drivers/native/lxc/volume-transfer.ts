import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/*
 * The stream of a container's migration between two agents: the target listens, and the source
 * connects once per volume, sends `<key>\n` and then the volume's archive, and ends its side. The
 * target writes the archive to a file, unpacks it and answers `ok\n`, or `error <message>\n`. Not
 * encrypted, as a VM's NBD exports: the nodes' network must be trusted (PVE's `insecure` type).
 */

/** A volume key and its newline: more than this before the newline is not a header. */
const HEADER_LIMIT = 64;

/** Where the archive of each volume key goes, and what to do with it once it all arrived. */
export interface VolumeSink {
  archiveOf(key: string): string | undefined;
  unpack(key: string, archive: string): Promise<void>;
}

/** The target's side: serves on `address` (a port the system picks) until closed. */
export class VolumeReceiver {
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** A failure is answered to the source, whose task log shows it. */
  static async listen(address: string, sink: VolumeSink): Promise<VolumeReceiver> {
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      receive(socket, sink).then(
        () => socket.end('ok\n'),
        (error: Error) => socket.end(`error ${error.message.replace(/\n/g, ' ')}\n`),
      );
    });
    server.listen(0, address);
    await once(server, 'listening');
    const bound = server.address();
    if (bound === null || typeof bound === 'string') throw new Error(`could not listen on ${address}`);
    return new VolumeReceiver(server, bound.port);
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    this.server.close();
    await once(this.server, 'close');
  }
}

/** Reads the header, then the archive into its file until the source ends its side, then unpacks it. */
async function receive(socket: Socket, sink: VolumeSink): Promise<void> {
  const { key, rest } = await header(socket);
  const archive = sink.archiveOf(key);
  if (archive === undefined) throw new Error(`volume '${key}' is not one this migration receives`);
  const file = createWriteStream(archive, { flags: 'wx' });
  file.write(rest);
  socket.pipe(file);
  await Promise.race([once(file, 'finish'), once(socket, 'error').then(([error]) => Promise.reject(error as Error))]);
  await sink.unpack(key, archive);
}

function header(socket: Socket): Promise<{ key: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let seen = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const end = seen.indexOf(10);
      if (end < 0 && seen.length <= HEADER_LIMIT) return;
      socket.off('data', onData);
      socket.off('error', reject);
      socket.pause();
      if (end < 0 || end > HEADER_LIMIT) return reject(new Error('the stream did not start with a volume key'));
      resolve({ key: seen.subarray(0, end).toString('utf8'), rest: seen.subarray(end + 1) });
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

/** The source's side: sends the archive of volume `key` and resolves once the target unpacked it. */
export async function sendVolume(
  target: { address: string; port: number },
  key: string,
  archive: string,
  signal: AbortSignal,
): Promise<void> {
  const socket = connect({ host: target.address, port: target.port, allowHalfOpen: true });
  const abort = () => socket.destroy(new Error('the migration was stopped'));
  signal.addEventListener('abort', abort, { once: true });
  try {
    await once(socket, 'connect');
    let answer = '';
    socket.setEncoding('utf8').on('data', (text: string) => (answer += text));
    socket.write(`${key}\n`);
    createReadStream(archive)
      .on('error', (error) => socket.destroy(error))
      .pipe(socket);
    await once(socket, 'end');
    const line = answer.trim();
    if (line !== 'ok') throw new Error(line.startsWith('error ') ? line.slice('error '.length) : `the target answered '${line}'`);
  } finally {
    signal.removeEventListener('abort', abort);
    socket.destroy();
  }
}
