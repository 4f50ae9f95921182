import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecked } from '../../host/run-program.js';
import { readQcow2Header } from './qcow2-header.js';

// Real images made by qemu-img (qemu-utils, tools/test-deps.sh).
describe('the header of a qcow2 image', () => {
  let dir: string;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-qcow2-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("gives an image's virtual size, and an overlay's backing file", async () => {
    const base = join(dir, 'base-100-disk-0.qcow2');
    const overlay = join(dir, 'vm-101-disk-0.qcow2');
    await runChecked('qemu-img', ['create', '-f', 'qcow2', base, String(64 * 1024 * 1024)], { signal });
    await runChecked('qemu-img', ['create', '-f', 'qcow2', '-F', 'qcow2', '-b', base, overlay], { signal });
    await expect(readQcow2Header(base)).resolves.toEqual({ size: 64 * 1024 * 1024 });
    await expect(readQcow2Header(overlay)).resolves.toEqual({ size: 64 * 1024 * 1024, backingFile: base });
  });

  it('is null for a file that is no qcow2 image', async () => {
    await writeFile(join(dir, 'vm-100-disk-0.raw'), Buffer.alloc(4096));
    await writeFile(join(dir, 'short'), 'QFI');
    await expect(readQcow2Header(join(dir, 'vm-100-disk-0.raw'))).resolves.toBeNull();
    await expect(readQcow2Header(join(dir, 'short'))).resolves.toBeNull();
  });
});
