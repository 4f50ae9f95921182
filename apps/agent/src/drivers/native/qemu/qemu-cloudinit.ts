import { mkdir, mkdtemp, open, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CloudinitFile, ParamsOf } from '@corral/protocol';
import { CommandFailure } from '../../../host/command-failure.js';
import { hostPath, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { imageFormat } from './qemu-images.js';

/** PVE reads at most 1 MiB of a snippet. */
const SNIPPET_LIMIT = 1024 * 1024;

/**
 * Writes a VM's cloud-init drive (`guest.cloudinit.write`): the files into a private temporary
 * folder (0700, removed after), an ISO 9660 image of them by genisoimage (Rock Ridge and Joliet,
 * as PVE makes it), then `qemu-img convert` of the ISO into a file beside the volume, renamed
 * over it: a VM that runs keeps reading the image it opened, and the next start reads the new one.
 */
export async function writeCloudinitDrive(
  host: Host,
  { vmid, volume, label, files }: ParamsOf<'guest.cloudinit.write'>,
  { signal, log }: CommandContext,
): Promise<void> {
  const format = imageFormat(vmid, volume);
  const work = await mkdtemp(join(tmpdir(), `corral-cloudinit-${vmid}-`));
  const target = hostPath(host, volume.path);
  const staged = `${target}.new`;
  try {
    const root = join(work, 'files');
    for (const file of files) {
      const path = join(root, file.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, await contentOf(host, file), { mode: 0o600 });
    }
    const iso = join(work, 'cloudinit.iso');
    log(`generating cloud-init ISO (${label}) for ${volume.key}`);
    await runChecked('genisoimage', ['-quiet', '-iso-level', '3', '-J', '-R', '-V', label, '-o', iso, root], { signal, onLine: log });
    await mkdir(dirname(target), { recursive: true });
    await runChecked('qemu-img', ['convert', '-f', 'raw', '-O', format, iso, staged], { signal, onLine: log });
    await rename(staged, target);
  } finally {
    await rm(staged, { force: true });
    await rm(work, { recursive: true, force: true });
  }
}

/** A file's content: its own, or its snippet's (at most 1 MiB; a missing one fails, naming it). */
async function contentOf(host: Host, file: CloudinitFile): Promise<string> {
  if ('content' in file) return file.content;
  const handle = await open(hostPath(host, file.snippet), 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new CommandFailure('failed', `cicustom: snippet ${file.snippet} does not exist`);
    throw error;
  });
  try {
    const buffer = Buffer.alloc(SNIPPET_LIMIT + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > SNIPPET_LIMIT) throw new CommandFailure('failed', `cicustom: snippet ${file.snippet} is larger than 1 MiB`);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
