import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Besides busybox itself: a shell that runs the start-up script, and nothing that waits on a console. */
const FILES: Readonly<Record<string, { text: string; mode: number }>> = {
  'etc/inittab': { text: '::sysinit:/etc/init.d/rcS\n', mode: 0o644 },
  'etc/init.d/rcS': { text: '#!/bin/sh\nmount -a\n', mode: 0o755 },
  'etc/fstab': { text: '', mode: 0o644 },
  'etc/passwd': { text: 'root:x:0:0:root:/root:/bin/sh\n', mode: 0o644 },
  'etc/group': { text: 'root:x:0:root\n', mode: 0o644 },
};
const FOLDERS = ['bin', 'sbin', 'dev', 'etc/init.d', 'proc', 'sys', 'root', 'run', 'var/log', 'mnt', 'home', 'tmp'];

/**
 * Builds a container template archive (PVE's `vztmpl`) of a minimal system from Debian's static
 * busybox (package busybox-static), laid out as `lxc-create -t busybox` does: busybox with its
 * applets as symbolic links in /bin, /sbin/init, an inittab that runs /etc/init.d/rcS and then
 * waits, root in /etc/passwd. The compression follows the archive's name (`.tar`, `.tar.gz`,
 * `.tar.xz`, `.tar.zst`: tar's --auto-compress); the files belong to root whoever builds it. Its
 * init halts on SIGPWR, LXC's shutdown signal.
 */
export async function buildBusyboxTemplate(archive: string, busybox = '/bin/busybox'): Promise<void> {
  await refuseDynamic(busybox);
  const root = await mkdtemp(join(tmpdir(), 'corral-busybox-'));
  try {
    for (const folder of FOLDERS) await mkdir(join(root, folder), { recursive: true });
    await chmod(join(root, 'tmp'), 0o1777);
    await copyFile(busybox, join(root, 'bin/busybox'));
    await chmod(join(root, 'bin/busybox'), 0o755);
    const applets = (await run(busybox, ['--list'])).stdout.split('\n').filter((name) => name !== '' && name !== 'busybox');
    for (const applet of applets) await symlink('busybox', join(root, 'bin', applet));
    await symlink('../bin/busybox', join(root, 'sbin/init'));
    for (const [path, { text, mode }] of Object.entries(FILES)) await writeFile(join(root, path), text, { mode });
    await mkdir(dirname(archive), { recursive: true });
    await run('tar', ['-c', '--auto-compress', '-f', archive, '--numeric-owner', '--owner=0', '--group=0', '-C', root, '.']);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The ELF program header that names a dynamic executable's loader. */
const PT_INTERP = 3;

/** A dynamically linked busybox (Debian's package `busybox`) finds no C library in the container and cannot start. */
async function refuseDynamic(busybox: string): Promise<void> {
  const elf = await readFile(busybox).catch(() => {
    throw new Error(`${busybox} is missing: install Debian's busybox-static`);
  });
  const table = Number(elf.readBigUInt64LE(0x20));
  const entrySize = elf.readUInt16LE(0x36);
  for (let entry = 0; entry < elf.readUInt16LE(0x38); entry++) {
    if (elf.readUInt32LE(table + entry * entrySize) === PT_INTERP)
      throw new Error(`${busybox} is dynamically linked: install Debian's busybox-static`);
  }
}
