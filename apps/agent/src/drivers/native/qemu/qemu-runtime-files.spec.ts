import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHost, type Host } from '../../../host/host.js';
import { qemuRuntimeFiles, readPidFile, removeRuntimeFiles, vmidsWithPidFiles } from './qemu-runtime-files.js';

describe('QEMU runtime files', () => {
  let dir: string;
  let host: Host;
  let run: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-run-'));
    host = await openHost(dir);
    run = join(dir, 'run/corral/qemu');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('places the files of a VM in the run folder under the host root', () => {
    expect(qemuRuntimeFiles(host, 100)).toEqual({
      dir: run,
      qmp: `${run}/100.qmp`,
      pid: `${run}/100.pid`,
      vnc: `${run}/100.vnc`,
      qga: `${run}/100.qga`,
      log: `${run}/100.log`,
      efivars: `${run}/100.efivars.fd`,
      tpmSocket: `${run}/100.swtpm`,
      tpmPid: `${run}/100.swtpm.pid`,
    });
  });

  it('refuses a host root so deep that a socket path would not fit a unix socket', () => {
    const deep: Host = { root: `/${'d'.repeat(90)}`, live: false };
    expect(() => qemuRuntimeFiles(deep, 100)).toThrow(
      /^the socket path \/d+\/run\/corral\/qemu\/100\.qmp is longer than the 107 bytes a unix socket allows/,
    );
  });

  it('lists the VMs that have a pid file, and none before the folder exists', async () => {
    expect(await vmidsWithPidFiles(host)).toEqual([]);
    await mkdir(run, { recursive: true });
    await Promise.all(['100.pid', '100.qmp', '101.log', '7.pid.old', 'x.pid', '205.pid'].map((name) => writeFile(join(run, name), '')));
    expect((await vmidsWithPidFiles(host)).sort()).toEqual([100, 205]);
  });

  it('reads the pid, and no pid from a missing, empty or garbled file', async () => {
    const files = qemuRuntimeFiles(host, 100);
    expect(await readPidFile(files)).toBeUndefined();
    await mkdir(run, { recursive: true });
    for (const [text, pid] of [
      ['4242\n', 4242],
      ['', undefined],
      ['12x', undefined],
      ['1\n', undefined],
    ] as const) {
      await writeFile(files.pid, text);
      expect(await readPidFile(files)).toBe(pid);
    }
  });

  it('removes the runtime files but the log, unless told to, and what is missing is fine', async () => {
    const files = qemuRuntimeFiles(host, 100);
    await mkdir(run, { recursive: true });
    await Promise.all([files.pid, files.vnc, files.log, `${run}/101.pid`].map((path) => writeFile(path, '')));
    await removeRuntimeFiles(files);
    expect((await readdir(run)).sort()).toEqual(['100.log', '101.pid']);
    await removeRuntimeFiles(files, true);
    expect(await readdir(run)).toEqual(['101.pid']);
  });
});
