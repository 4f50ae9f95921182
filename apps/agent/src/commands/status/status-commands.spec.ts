import { existsSync } from 'node:fs';
import { mkdtemp, rm, statfs } from 'node:fs/promises';
import { cpus, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS } from '@corral/protocol';
import { openHost } from '../../host/host.js';
import { statusCommands } from './status-commands.js';

describe('node.status', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-status-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("answers with this machine's load, memory and CPUs and the host root's file system, as the protocol's result", async () => {
    const status = await statusCommands(await openHost(dir))['node.status'](
      {},
      { signal: new AbortController().signal, log: () => undefined },
    );
    expect(COMMANDS['node.status'].result.parse(status)).toEqual(status);
    expect(status.cpuinfo.cpus).toBe(cpus().length);
    expect(status.cpuinfo.model).toBe(cpus()[0]?.model);
    expect(status.kernel).toMatchObject({ sysname: 'Linux', release: release() });
    expect(status.os).toBe('Linux'); // the temporary root has no os-release
    expect(status.wait).toBeGreaterThanOrEqual(0);
    expect(status.swap && status.swap.used + status.swap.free).toBe(status.swap?.total);
    expect(status.cpuinfo.userHz).toBe(100);
    expect(status.boot?.efi).toBe(existsSync('/sys/firmware/efi'));
    expect(status.memory.used + status.memory.available).toBe(status.memory.total);
    const fs = await statfs(dir);
    expect(status.rootfs.total).toBe(fs.blocks * fs.bsize);
    expect(status.rootfs.free).toBe(status.rootfs.total - status.rootfs.used);
    expect(status.rootfs.avail).toBeLessThanOrEqual(status.rootfs.free);
  });
});
