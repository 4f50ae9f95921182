import type { GuestVolume } from '@corral/protocol';
import { hostPath, type Host } from '../../../host/host.js';
import { freePort } from './free-port.js';
import { QmpError, type QmpClient } from './qmp-client.js';

/*
 * The receiving side of a migration's volumes: QEMU's NBD server, in the VM's own QEMU waiting
 * for an incoming migration or in a qemu-storage-daemon, serves each volume as a writable export
 * named after its key (`scsi0`). The sender writes into them (a mirror job, or qemu-img convert).
 */

/** How often a port found free is tried before giving up: another program may take it first. */
const PORT_ATTEMPTS = 3;

/** The node of a volume that QEMU did not have open and opened to serve it. */
export function servedNode(key: string): string {
  return `migrate-${key}`;
}

/**
 * Starts the NBD server on `listen` and serves `volumes` from it; resolves with its port. A disk
 * the VM has open is served from its own drive (`drive-<key>`, as the command line names it), so
 * that the VM reads what arrives; any other volume is opened for it.
 */
export async function serveVolumes(qmp: QmpClient, host: Host, listen: string, volumes: readonly GuestVolume[]): Promise<number> {
  const drives = await driveNodes(qmp);
  const port = await startServer(qmp, listen);
  for (const volume of volumes) {
    let node = drives.get(`drive-${volume.key}`);
    if (node === undefined) {
      node = servedNode(volume.key);
      await qmp.execute('blockdev-add', {
        driver: volume.format,
        'node-name': node,
        file: { driver: 'file', filename: hostPath(host, volume.path) },
      });
    }
    await qmp.execute('block-export-add', { type: 'nbd', id: `export-${volume.key}`, 'node-name': node, name: volume.key, writable: true });
  }
  return port;
}

/** Ends the NBD server and its exports, and closes the volumes opened for them (the VM's own drives stay). */
export async function stopServing(qmp: QmpClient, volumes: readonly GuestVolume[]): Promise<void> {
  await qmp.execute('nbd-server-stop');
  const opened = await namedNodes(qmp);
  for (const volume of volumes) {
    if (opened.has(servedNode(volume.key))) await qmp.execute('blockdev-del', { 'node-name': servedNode(volume.key) });
  }
}

/** The top node of each drive, by drive id. */
export async function driveNodes(qmp: QmpClient): Promise<Map<string, string>> {
  const drives = (await qmp.execute('query-block')) as { device?: unknown; inserted?: { 'node-name'?: unknown } }[];
  return new Map(
    drives.flatMap((drive) => {
      const node = drive.inserted?.['node-name'];
      return typeof drive.device === 'string' && typeof node === 'string' ? [[drive.device, node] as const] : [];
    }),
  );
}

/** The names of the nodes QEMU has open. */
export async function namedNodes(qmp: QmpClient): Promise<Set<string>> {
  const nodes = (await qmp.execute('query-named-block-nodes')) as { 'node-name'?: unknown }[];
  return new Set(nodes.flatMap((node) => (typeof node['node-name'] === 'string' ? [node['node-name']] : [])));
}

/** QEMU cannot say which port it got for port 0: one found free is handed to it, and another one when it was taken meanwhile. */
async function startServer(qmp: QmpClient, listen: string): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort(listen).catch((error: Error) => {
      throw new Error(`cannot listen on ${listen} (the address the control plane sees this node's agent connect from): ${error.message}`);
    });
    try {
      await qmp.execute('nbd-server-start', { addr: { type: 'inet', data: { host: listen, port: String(port) } } });
      return port;
    } catch (error) {
      if (attempt === PORT_ATTEMPTS || !(error instanceof QmpError)) throw error;
    }
  }
}
