import { buildBusyboxTemplate, type AgentProcess, type ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startOnTestDatabase } from '../../support/control-plane.js';
import { data, guestApi } from '../../support/guest-api.js';

const run = promisify(execFile);

/** How long anything here may take on a slow, shared machine: never a measure of speed. */
export const PATIENCE_MS = 60_000;
export const NODE = 'host1';
/** The busybox container template every node here has in `local`. */
export const OSTEMPLATE = 'local:vztmpl/busybox.tar.gz';

export interface NativeNode {
  readonly cp: ControlPlaneProcess;
  readonly api: ReturnType<typeof guestApi>;
  readonly root: string;
  readonly rootPassword: string;
  /** Kills whatever guest a failed test left running, then stops the agent and the control plane and removes the node's files. */
  stop(): Promise<void>;
}

/**
 * A control plane (errors in PVE's shape, which the strictest client needs) with one node,
 * `host1`, whose agent runs real guests on the native driver, and a busybox container template
 * in its `local` storage.
 */
export async function startNativeNode(name: string): Promise<NativeNode> {
  const rootPassword = `${name}-root-password`;
  const root = await mkdtemp(join(tmpdir(), `corral-${name}-`));
  let agent: AgentProcess | undefined;
  let cp: ControlPlaneProcess | undefined;
  const stop = async () => {
    // Guests outlive their agent (as in PVE): whatever a failed test left running is killed here.
    await run('pkill', ['-9', '-f', root]).catch(() => undefined);
    const lxcPath = join(root, NODE, 'var/lib/corral/lxc');
    for (const container of await readdir(lxcPath).catch(() => []))
      await run('lxc-stop', ['-P', lxcPath, '-n', container, '-k']).catch(() => undefined);
    await agent?.kill();
    await cp?.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    cp = await startOnTestDatabase({ env: { CORRAL_ROOT_PASSWORD: rootPassword, CORRAL_ERROR_FORMAT: 'pve' } });
    const api = guestApi(cp, rootPassword, PATIENCE_MS);
    await mkdir(join(root, NODE, 'var/lib/vz/template/cache'), { recursive: true });
    await buildBusyboxTemplate(join(root, NODE, 'var/lib/vz/template/cache/busybox.tar.gz'));
    agent = await api.onlineNativeAgent(root, NODE);
    return { cp, api, root, rootPassword, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A stopped VM made a template: a 64 MiB disk and a NIC, as a clone source. */
export async function vmTemplate(node: NativeNode, vmid: number): Promise<void> {
  await expectOk(
    node.api.task(NODE, `/nodes/${NODE}/qemu`, 'POST', {
      vmid,
      name: `template-${vmid}`,
      memory: 64,
      scsihw: 'virtio-scsi-pci',
      scsi0: 'local:0.0625',
      net0: 'virtio,bridge=vmbr0',
    }),
  );
  await expectOk(node.api.task(NODE, `/nodes/${NODE}/qemu/${vmid}/template`));
}

/** A busybox container made a template, as a clone source. */
export async function containerTemplate(node: NativeNode, vmid: number): Promise<void> {
  await expectOk(
    node.api.task(NODE, `/nodes/${NODE}/lxc`, 'POST', {
      vmid,
      hostname: `template-${vmid}`,
      ostemplate: OSTEMPLATE,
      rootfs: 'local:0.25',
      memory: 64,
      net0: 'name=eth0,bridge=vmbr0,ip=dhcp',
    }),
  );
  // A container becomes a template at once (no task), as in PVE.
  data(await node.api.send(`/nodes/${NODE}/lxc/${vmid}/template`, 'POST'));
}

async function expectOk(status: Promise<string>): Promise<void> {
  const result = await status;
  if (result !== 'OK') throw new Error(`setting up a template failed: ${result}`);
}
