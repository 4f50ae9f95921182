import { readdir, readFile, rm } from 'node:fs/promises';
import { hostPath, type Host } from '../../../host/host.js';
import { endSwtpm } from './qemu-tpm.js';

/**
 * Where a running VM's files live (host paths): QEMU writes the pid file and listens on the
 * sockets, so a restarted agent finds its VMs again from this folder alone, as PVE does from
 * /var/run/qemu-server.
 */
export const QEMU_RUN_DIR = '/run/corral/qemu';

/** sun_path holds 108 bytes with the terminating NUL (unix(7)). */
const MAX_SOCKET_PATH = 107;

/** One VM's runtime files, resolved under the host root. */
export interface QemuRuntimeFiles {
  readonly dir: string;
  /** The QMP socket. */
  readonly qmp: string;
  readonly pid: string;
  /** The VNC display's socket. */
  readonly vnc: string;
  /** The guest agent's channel (a VM with `agent: 1`). */
  readonly qga: string;
  /** QEMU's own log (`-D`): its warnings and errors after it went to the background. */
  readonly log: string;
  /** A VM with OVMF and no `efidisk0`: the temporary copy of the vars template it runs with. */
  readonly efivars: string;
  /** A VM with `tpmstate0`: its swtpm's control socket and pid file. */
  readonly tpmSocket: string;
  readonly tpmPid: string;
}

export function qemuRuntimeFiles(host: Host, vmid: number): QemuRuntimeFiles {
  const dir = hostPath(host, QEMU_RUN_DIR);
  const files = {
    dir,
    qmp: `${dir}/${vmid}.qmp`,
    pid: `${dir}/${vmid}.pid`,
    vnc: `${dir}/${vmid}.vnc`,
    qga: `${dir}/${vmid}.qga`,
    log: `${dir}/${vmid}.log`,
    efivars: `${dir}/${vmid}.efivars.fd`,
    tpmSocket: `${dir}/${vmid}.swtpm`,
    tpmPid: `${dir}/${vmid}.swtpm.pid`,
  };
  for (const socket of [files.qmp, files.vnc, files.qga, files.tpmSocket]) {
    if (Buffer.byteLength(socket) > MAX_SOCKET_PATH)
      throw new Error(
        `the socket path ${socket} is longer than the ${MAX_SOCKET_PATH} bytes a unix socket allows: use a shorter host root`,
      );
  }
  return files;
}

/** The pid QEMU wrote, or undefined when there is no pid file (or no number in it). */
export async function readPidFile(files: Pick<QemuRuntimeFiles, 'pid'>): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(files.pid, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

/** The VMs that have a pid file: those that run, and those whose QEMU died without removing it. */
export async function vmidsWithPidFiles(host: Host): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(hostPath(host, QEMU_RUN_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.flatMap((name) => /^([1-9][0-9]*)\.pid$/.exec(name)?.[1] ?? []).map(Number);
}

/**
 * Removes what a stopped VM left behind (QEMU removes its pid file and QMP socket when it quits,
 * not when it is killed, and never the VNC and guest agent sockets), with its temporary EFI vars,
 * and ends its swtpm if that still runs (it ends by itself once QEMU's connection closes). The log
 * stays until the VM is destroyed: it tells why the VM stopped.
 */
export async function removeRuntimeFiles(files: QemuRuntimeFiles, withLog = false): Promise<void> {
  await endSwtpm(files);
  const paths = [files.pid, files.qmp, files.vnc, files.qga, files.efivars, ...(withLog ? [files.log] : [])];
  await Promise.all(paths.map((path) => rm(path, { force: true })));
}
