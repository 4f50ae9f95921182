import { open } from 'node:fs/promises';
import { readQcow2Header } from './qcow2-header.js';

/** qcow2 v3's incompatible feature bit "external data file": the guest's data would live in a file the image names. */
const EXTERNAL_DATA_FILE = 1n << 2n;

/**
 * A disk image downloaded for import is untrusted: a qcow2 image that is none, or that names a
 * backing file or an external data file (which would let a guest read any file of the host), is
 * refused, as PVE refuses such images. Other files pass.
 */
export async function refuseUnsafeImage(path: string, file: string): Promise<void> {
  if (!/^import\/.*\.qcow2$/.test(file)) return;
  const header = await readQcow2Header(path);
  if (header === null) throw new Error(`'${file}' is not a qcow2 image`);
  if (header.backingFile !== undefined)
    throw new Error(`the qcow2 image '${file}' has a backing file ('${header.backingFile}'), which an imported image may not have`);
  if (await hasExternalDataFile(path))
    throw new Error(`the qcow2 image '${file}' uses an external data file, which an imported image may not have`);
}

async function hasExternalDataFile(path: string): Promise<boolean> {
  const image = await open(path, 'r');
  try {
    const header = Buffer.alloc(80);
    const { bytesRead } = await image.read(header, 0, header.length, 0);
    return bytesRead === header.length && header.readUInt32BE(4) >= 3 && (header.readBigUInt64BE(72) & EXTERNAL_DATA_FILE) !== 0n;
  } finally {
    await image.close();
  }
}
