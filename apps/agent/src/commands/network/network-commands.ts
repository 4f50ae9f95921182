import { CommandFailure } from '../../host/command-failure.js';
import { findProgram, programMissing } from '../../host/find-program.js';
import { readHostFile, renameHostFile, writeHostFile } from '../../host/host-files.js';
import { hostPath, type Host } from '../../host/host.js';
import { lastWords, runChecked, runProgram } from '../../host/run-program.js';
import type { AreaHandlers } from '../area-handlers.js';
import { describeInterfaces } from './describe-interfaces.js';
import { appendStanzas, fileInterfaces, parseInterfacesFile, removeInterface, renderInterfacesFile } from './interfaces-file.js';
import { parseIpAddr, type KernelLink } from './kernel-links.js';
import { renderNewInterface } from './new-stanza.js';

const CURRENT = '/etc/network/interfaces';
const PENDING = '/etc/network/interfaces.new';

/**
 * PVE's `/nodes/{node}/network`: changes go to the pending copy of the interfaces file (started
 * from the current file when nothing is pending) and take effect when applied. The kernel's links
 * are this machine's even when the host root is a tree of files: that is what is running here.
 */
export function networkCommands(
  host: Host,
): AreaHandlers<'node.network.list' | 'node.network.create' | 'node.network.delete' | 'node.network.apply'> {
  /** The file that changes edit: the pending one, else the current one. */
  const editable = async () => parseInterfacesFile((await readHostFile(host, PENDING)) ?? (await readHostFile(host, CURRENT)) ?? '');

  return {
    'node.network.list': async (_params, { signal }) => {
      const pending = await readHostFile(host, PENDING);
      const file = parseInterfacesFile(pending ?? (await readHostFile(host, CURRENT)) ?? '');
      const interfaces = describeInterfaces(fileInterfaces(file), await kernelLinks(signal));
      return { interfaces, changes: pending === undefined ? undefined : await pendingChanges(host, signal) };
    },

    'node.network.create': async (params, { signal }) => {
      const file = await editable();
      if (fileInterfaces(file).has(params.iface))
        throw new CommandFailure('failed', `interface '${params.iface}' already exists in ${CURRENT}`);
      if ((await kernelLinks(signal)).some((link) => link.name === params.iface))
        throw new CommandFailure('failed', `interface '${params.iface}' already exists on the host`);
      await writeHostFile(host, PENDING, renderInterfacesFile(appendStanzas(file, renderNewInterface(params))));
      return null;
    },

    'node.network.delete': async ({ iface }) => {
      const file = await editable();
      if (!fileInterfaces(file).has(iface)) throw new CommandFailure('not-found', `interface '${iface}' does not exist in ${CURRENT}`);
      await writeHostFile(host, PENDING, renderInterfacesFile(removeInterface(file, iface)));
      return null;
    },

    'node.network.apply': async (_params, { signal, log }) => {
      // Checked before the rename, so a host without ifreload keeps its changes pending, not half applied.
      if (host.live && (await findProgram('ifreload')) === undefined)
        throw new CommandFailure('unavailable', `${programMissing('ifreload').message}: the changes stay in ${PENDING}`);
      if ((await readHostFile(host, PENDING)) === undefined) log('no pending network changes');
      else await renameHostFile(host, PENDING, CURRENT);
      if (!host.live) {
        log(`host root ${host.root} is not the running system: ${CURRENT} written, the network not reloaded`);
        return null;
      }
      await runChecked('ifreload', ['-a'], { signal, onLine: log });
      return null;
    },
  };
}

async function kernelLinks(signal: AbortSignal): Promise<KernelLink[]> {
  return parseIpAddr((await runChecked('ip', ['-j', '-d', 'addr', 'show'], { signal })).stdout);
}

/** `diff -u` of the current and the pending file, as PVE's `changes`; undefined when they are the same. */
async function pendingChanges(host: Host, signal: AbortSignal): Promise<string | undefined> {
  const output = await runProgram(
    'diff',
    ['-u', '-N', '--label', CURRENT, '--label', PENDING, hostPath(host, CURRENT), hostPath(host, PENDING)],
    { signal },
  );
  if (output.code === 0) return undefined;
  if (output.code === 1) return output.stdout;
  throw new CommandFailure('failed', `diff failed: ${lastWords(output)}`);
}
