import { open } from 'node:fs/promises';

/** What the header of a qcow2 image says (QEMU's docs/interop/qcow2.txt; big-endian fields). */
export interface Qcow2Header {
  /** The virtual disk's size in bytes. */
  readonly size: number;
  /** The image this one is an overlay of (a linked clone's base), as written into the image. */
  readonly backingFile?: string;
}

const MAGIC = 0x514649fb; // 'QFI\xfb'
const HEADER_BYTES = 32;
/** QEMU refuses backing file names longer than this. */
const MAX_BACKING_FILE = 1023;

/** Reads the header of the image at `path`; null when the file is no qcow2 image. */
export async function readQcow2Header(path: string): Promise<Qcow2Header | null> {
  const file = await open(path, 'r');
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await file.read(header, 0, HEADER_BYTES, 0);
    if (bytesRead < HEADER_BYTES || header.readUInt32BE(0) !== MAGIC) return null;
    const size = Number(header.readBigUInt64BE(24));
    const offset = Number(header.readBigUInt64BE(8));
    const length = header.readUInt32BE(16);
    if (offset === 0 || length === 0 || length > MAX_BACKING_FILE) return { size };
    const name = Buffer.alloc(length);
    const read = await file.read(name, 0, length, offset);
    return { size, backingFile: name.subarray(0, read.bytesRead).toString('utf8') };
  } finally {
    await file.close();
  }
}
