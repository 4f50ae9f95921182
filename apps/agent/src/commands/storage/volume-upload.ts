import { UploadStreamEnd, type ParamsOf, type UploadStreamReady } from '@corral/protocol';
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { RawData, WebSocket } from 'ws';
import type { CommandContext } from '../../drivers/command-context.js';
import { requireActive } from '../../drivers/storage-location.js';
import type { Host } from '../../host/host.js';
import { asBuffer, type StreamOpener } from '../guests/vnc-stream.js';

/**
 * `storage.upload`: the file comes through a byte stream to the control plane (its bytes would hold
 * up the connection's frames), into a hidden temporary file beside its target. Only a file whose
 * stream ended with `UploadStreamEnd`, whose size is the one announced there and whose digest is
 * the one asked for is renamed into place; anything else removes the temporary file, so no half
 * written volume ever shows.
 */
export async function upload(
  host: Host,
  openStream: StreamOpener,
  { stream, file, checksum, ...location }: ParamsOf<'storage.upload'>,
  context: CommandContext,
): Promise<{ size: number }> {
  const target = join(await requireActive(host, location), file);
  await mkdir(dirname(target), { recursive: true });
  const temporary = join(dirname(target), `.${basename(target)}.corral-upload-${randomBytes(6).toString('hex')}`);
  // Flushed to disk before it is closed: the rename must not publish a file a crash could still empty.
  const out = createWriteStream(temporary, { flags: 'wx', mode: 0o644, flush: true });
  let socket: WebSocket | undefined;
  try {
    context.log(`target file: ${location.path}/${file}`);
    socket = await openStream(stream);
    const hash = checksum === undefined ? null : createHash(checksum.algorithm);
    const size = await receive(socket, out, hash, context.signal);
    context.log(`file size is: ${size}`);
    if (hash !== null && checksum !== undefined) {
      const digest = hash.digest('hex');
      if (digest !== checksum.digest) throw new Error(`checksum mismatch: got '${digest}' != expect '${checksum.digest}'`);
      context.log(`${checksum.algorithm} checksum verified`);
    }
    await rename(temporary, target);
    socket.close(1000, 'stored');
    return { size };
  } catch (error) {
    socket?.close(1011, 'the upload failed');
    out.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Says `UploadStreamReady`, then writes the stream's bytes to `out` in order, read no faster than
 * they are written; resolves with their count at `UploadStreamEnd`, once all are on disk and the
 * file is closed.
 */
function receive(socket: WebSocket, out: WriteStream, hash: Hash | null, signal: AbortSignal): Promise<number> {
  let received = 0;
  return new Promise((resolve, reject) => {
    let over = false;
    const fail = (error: Error) => {
      if (over) return;
      over = true;
      reject(error);
    };
    const finish = async (size: number) => {
      over = true;
      out.end();
      await once(out, 'close');
      if (size !== received) throw new Error(`the upload announced ${size} bytes but ${received} arrived`);
      return size;
    };
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (over) return;
      if (!isBinary) {
        const end = UploadStreamEnd.safeParse(parseJson(data.toString()));
        if (!end.success) return fail(new Error('the upload stream sent a text message that is not its end'));
        return void finish(end.data.size).then(resolve, reject);
      }
      const chunk = asBuffer(data);
      received += chunk.length;
      hash?.update(chunk);
      if (!out.write(chunk)) socket.pause();
    });
    out.on('drain', () => socket.resume());
    out.on('error', fail);
    socket.on('close', (code: number, reason: Buffer) =>
      fail(new Error(`the upload stopped after ${received} bytes: ${reason.toString() || `stream closed (${code})`}`)),
    );
    socket.on('error', () => socket.terminate());
    signal.addEventListener('abort', () => fail(signal.reason instanceof Error ? signal.reason : new Error('the upload was cancelled')), {
      once: true,
    });
    const ready: UploadStreamReady = { ready: true };
    socket.send(JSON.stringify(ready));
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
