import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectCapabilities } from './capabilities.js';

describe('detectCapabilities', () => {
  const path = process.env['PATH'];
  let bin: string;

  beforeEach(async () => {
    bin = await mkdtemp(join(tmpdir(), 'corral-bin-'));
  });
  afterEach(async () => {
    process.env['PATH'] = path;
    await rm(bin, { recursive: true, force: true });
  });

  it('names the capabilities whose program is an executable on PATH, and no others', async () => {
    for (const [program, mode] of [
      ['nft', 0o755],
      ['vgs', 0o755],
      ['apt-get', 0o755],
      ['zpool', 0o644],
    ] as const) {
      await writeFile(join(bin, program), '#!/bin/sh\n');
      await chmod(join(bin, program), mode);
    }
    process.env['PATH'] = bin;
    expect((await detectCapabilities()).sort()).toEqual(['apt', 'lvm', 'nft']);
  });

  it('finds nothing on an empty PATH', async () => {
    process.env['PATH'] = '';
    expect(await detectCapabilities()).toEqual([]);
  });
});
