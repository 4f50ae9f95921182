import { readFile, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import type { GuestVolume } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { PROC_ROOT } from '../../../host/kernel-roots.js';
import { runChecked } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { escapeOption } from './qemu-option-value.js';
import { waitForExit } from './qemu-process.js';
import type { QemuRuntimeFiles } from './qemu-runtime-files.js';

/*
 * A VM's TPM, as PVE gives it: Debian's swtpm emulates it on the VM's `tpmstate0` volume, started
 * before QEMU, which talks to it over a unix socket. swtpm ends by itself once QEMU's connection
 * closes (`--terminate`); whatever ends the VM ends it too.
 */

/** swtpm_setup makes keys and certificates the first time (a few seconds); this only catches a hung one. */
const SETUP_LIMIT_MS = 120_000;
const EXIT_WAIT_MS = 5_000;

/** QEMU's side: the socket, the TPM backend and a TIS device (PVE's `tpm-tis` on x86). */
export function tpmArgs(files: Pick<QemuRuntimeFiles, 'tpmSocket'>): string[] {
  return [
    '-chardev',
    `socket,id=tpmchar,path=${escapeOption(files.tpmSocket)}`,
    '-tpmdev',
    'emulator,id=tpmdev,chardev=tpmchar',
    '-device',
    'tpm-tis,tpmdev=tpmdev',
  ];
}

/**
 * Starts the swtpm of VM `vmid` on its state volume, as PVE does: `swtpm_setup` first, which
 * makes the TPM's endorsement key and certificates in a state that has none and leaves one that
 * has them as it is (`--not-overwrite`), then `swtpm socket` in the background.
 */
export async function startSwtpm(
  host: Host,
  vmid: number,
  volume: GuestVolume,
  files: QemuRuntimeFiles,
  { signal, log }: CommandContext,
): Promise<void> {
  const state = hostPath(host, volume.path);
  // swtpm reads its options as `key=value` items separated by commas, with no escape.
  if (state.includes(',') || files.tpmSocket.includes(',')) throw new Error(`VM ${vmid}: swtpm cannot take a path with a comma (${state})`);
  const tpm2 = volume.tpm === 'v2.0';
  await runChecked(
    'swtpm_setup',
    [
      '--tpmstate',
      `file://${state}`,
      '--createek',
      '--create-ek-cert',
      '--create-platform-cert',
      '--lock-nvram',
      '--config',
      '/etc/swtpm_setup.conf',
      '--runas',
      '0',
      '--not-overwrite',
      ...(tpm2 ? ['--tpm2', '--ecc'] : []),
    ],
    { signal, onLine: (line) => log(`swtpm_setup: ${line}`), timeoutMs: SETUP_LIMIT_MS },
  );
  await rm(files.tpmSocket, { force: true });
  await runChecked(
    'swtpm',
    [
      'socket',
      '--tpmstate',
      `backend-uri=file://${state},mode=0600`,
      '--ctrl',
      `type=unixio,path=${files.tpmSocket},mode=0600`,
      '--pid',
      `file=${files.tpmPid}`,
      '--terminate',
      '--daemon',
      ...(tpm2 ? ['--tpm2'] : []),
    ],
    { signal },
  );
}

/** Ends the VM's swtpm if it still runs (SIGTERM, then SIGKILL), and removes its socket and pid file. Not cancellable: it cleans up. */
export async function endSwtpm(files: QemuRuntimeFiles): Promise<void> {
  const pid = Number((await readFile(files.tpmPid, 'utf8').catch(() => '')).trim());
  if (Number.isInteger(pid) && pid > 1 && (await isSwtpmOf(pid, files.tpmPid))) {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      try {
        process.kill(pid, signal);
      } catch {
        break; // gone in between
      }
      if (await waitForExit(pid, files.tpmPid, EXIT_WAIT_MS, undefined, isSwtpmOf)) break;
    }
  }
  await Promise.all([files.tpmSocket, files.tpmPid].map((path) => rm(path, { force: true })));
}

/** Whether `pid` is the swtpm started with this pid file (`--pid file=<pidFile>`), not a program that got its pid since. */
async function isSwtpmOf(pid: number, pidFile: string): Promise<boolean> {
  const args = (await readFile(`${PROC_ROOT}/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
  return basename(args[0] ?? '') === 'swtpm' && args.includes(`file=${pidFile}`);
}
