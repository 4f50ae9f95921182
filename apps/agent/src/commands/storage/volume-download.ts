import type { ParamsOf } from '@corral/protocol';
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { CommandContext } from '../../drivers/command-context.js';
import { missing, requireActive } from '../../drivers/storage-location.js';
import type { Host } from '../../host/host.js';
import { refuseUnsafeImage } from './importable-image.js';
import { openUrl } from './url-request.js';

type Checksum = NonNullable<ParamsOf<'storage.download'>['checksum']>;

/**
 * `storage.download`, PVE's `download-url` and appliance download: the answer's body goes into a
 * hidden temporary file beside its target, counted against `maxBytes` as it arrives (and again
 * after `decompress`), hashed, and renamed into place only when complete and, with a checksum,
 * verified. Any failure removes the temporary file. An existing file is never replaced, as PVE:
 * with the checksum it is kept, else the command fails. The log lines are PVE's.
 */
export async function download(host: Host, params: ParamsOf<'storage.download'>, context: CommandContext): Promise<{ size: number }> {
  const { file, url, verifyCertificates, allowNetworks, checksum, decompress, maxBytes, ...location } = params;
  const target = join(await requireActive(host, location), file);
  const shown = `${location.path}/${file}`;
  const existing = await stat(target).catch(missing);
  if (existing !== null) return keepExisting(target, shown, existing.size, checksum, context);

  context.log(`downloading ${url} to ${shown}`);
  await mkdir(dirname(target), { recursive: true });
  const temporary = join(dirname(target), `.${basename(target)}.corral-download-${randomBytes(6).toString('hex')}`);
  try {
    const response = await openUrl({ url, verifyCertificates, allowNetworks }, 'GET', context.signal, context.log);
    if (response.statusCode !== 200) {
      response.resume();
      throw new Error(`download failed: the server answered '${response.statusCode ?? 0} ${response.statusMessage ?? ''}'`);
    }
    const announced = Number(response.headers['content-length']);
    if (announced > maxBytes) {
      response.resume();
      throw new Error(`download failed: the file has ${announced} bytes, more than the ${maxBytes} a download may have`);
    }
    const hash = checksum === undefined ? null : createHash(checksum.algorithm);
    const received = counted(maxBytes, 'the download', hash);
    const written = counted(maxBytes, 'the unpacked file', null);
    // Flushed to disk before it is closed: the rename must not publish a file a crash could still empty.
    const out = createWriteStream(temporary, { flags: 'wx', mode: 0o644, flush: true });
    await pipeline([response, received.stream, ...(decompress === 'gz' ? [createGunzip(), written.stream] : []), out], {
      signal: context.signal,
    });
    context.log(`downloaded ${received.bytes()} bytes${decompress === undefined ? '' : `, ${written.bytes()} unpacked`}`);
    if (hash !== null && checksum !== undefined) verify(hash.digest('hex'), checksum, context);
    await refuseUnsafeImage(temporary, file);
    await rename(temporary, target);
    context.log(`download of '${url}' to '${shown}' finished`);
    return { size: (await stat(target)).size };
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** An existing file stays: it is the one asked for when it has the checksum; without one there is no telling, and PVE refuses. */
async function keepExisting(
  target: string,
  shown: string,
  size: number,
  checksum: Checksum | undefined,
  context: CommandContext,
): Promise<{ size: number }> {
  if (checksum === undefined) throw new Error(`refusing to override existing file '${shown}'`);
  context.log('calculating checksum of existing file...');
  const hash = createHash(checksum.algorithm);
  await pipeline(createReadStream(target), hash);
  const got = hash.digest('hex');
  if (got !== checksum.digest) throw new Error(`checksum mismatch: got '${got}' != expect '${checksum.digest}', aborting`);
  context.log('OK, got correct file already, no need to download');
  return { size };
}

function verify(got: string, checksum: Checksum, context: CommandContext): void {
  context.log('calculating checksum...');
  if (got !== checksum.digest) throw new Error(`checksum mismatch: got '${got}' != expect '${checksum.digest}'`);
  context.log('OK, checksum verified');
}

/** A pass-through that counts the bytes (feeding `hash`), and fails once they are more than `max`. */
function counted(max: number, what: string, hash: Hash | null): { stream: Transform; bytes: () => number } {
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > max) return done(new Error(`download failed: ${what} grew past the ${max} bytes a download may have`));
      hash?.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, bytes: () => bytes };
}
