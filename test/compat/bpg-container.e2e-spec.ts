import { waitFor } from '@corral/testing';
import { BPG_CT_CONFIG, BPG_CT_STATUS, BPG_RESOURCE } from './support/bpg-types.js';
import { bpgClient } from './support/dialects.js';
import { decodeGoList } from './support/go-json.js';
import { containerTemplate, NODE, PATIENCE_MS, startNativeNode, type NativeNode } from './support/native-node.js';
import type { ProviderClient } from './support/provider-client.js';

const TEMPLATE = 9100;
const VMID = 201;
const CT = `/nodes/${NODE}/lxc/${VMID}`;
/** bpg's network_interface block (`name`, `bridge` defaults) with `ip_config { ipv4 { address = "dhcp" } }`; host-managed because Corral speaks PVE 9.1. */
const NIC = (name: string) => `bridge=vmbr0,firewall=0,host-managed=0,ip=dhcp,name=${name}`;

/**
 * bpg's `proxmox_virtual_environment_container`, replayed request by request from the provider's
 * source (`proxmoxtf/resource/container/container.go`: containerCreateClone, containerCreateStart,
 * containerRead, containerUpdate, containerDelete) for this resource:
 *
 *   clone { vm_id = 9100 }   vm_id = 201   memory { dedicated = 128 }   started = true
 *   initialization { hostname = "tf-bpg-ct"  ip_config { ipv4 { address = "dhcp" } } }
 *   network_interface { name = "eth0" }
 *
 * then updated to a 1 GiB root, a mount point and a second NIC, and destroyed.
 */
describe('bpg proxmox_virtual_environment_container (replayed)', () => {
  let node: NativeNode;
  let bpg: ProviderClient;

  beforeAll(async () => {
    node = await startNativeNode('bpg-ct');
    bpg = await bpgClient(node.cp, node.rootPassword, PATIENCE_MS);
    await containerTemplate(node, TEMPLATE);
  }, 3 * PATIENCE_MS);
  afterAll(() => node?.stop());

  /** WaitForContainerStatus: polls the status until it is `status`. */
  const statusBecomes = (status: string) =>
    waitFor(async () => (await bpg.read(`${CT}/status/current`, BPG_CT_STATUS))['status'] === status, {
      timeoutMs: PATIENCE_MS,
      what: `container ${VMID} ${status}`,
      intervalMs: 200,
    });

  /** containerRead: the node from the cluster's resources, then the config and the status. */
  async function read() {
    const resources = decodeGoList<{ vmid: number; node: string }>(
      BPG_RESOURCE,
      await bpg.call('GET', '/cluster/resources', { type: 'vm' }),
      'bpg GET /cluster/resources',
    );
    expect(resources.find((resource) => resource.vmid === VMID)?.node).toBe(NODE);
    return { config: await bpg.read(`${CT}/config`, BPG_CT_CONFIG), status: await bpg.read(`${CT}/status/current`, BPG_CT_STATUS) };
  }

  it('creates: clones the template, configures the clone, starts it, and reads it back', async () => {
    await bpg.task('POST', `/nodes/${NODE}/lxc/${TEMPLATE}/clone`, { full: 1, hostname: 'tf-bpg-ct', newid: VMID });
    await bpg.call('PUT', `${CT}/config`, {
      arch: 'amd64',
      cmode: 'tty',
      console: 1,
      cores: 1,
      // The container's `delete` is a plain list: repeated keys.
      delete: ['cpulimit', ...Array.from({ length: 9 }, (_, index) => `net${index + 1}`)],
      hostname: 'tf-bpg-ct',
      memory: 128,
      net0: NIC('eth0'),
      onboot: 1,
      protection: 0,
      swap: 0,
      tty: 2,
    });
    // WaitForContainerConfigUnlock, then containerCreateStart.
    expect((await bpg.read(`${CT}/status/current`, BPG_CT_STATUS))['lock']).toBeUndefined();
    await bpg.task('POST', `${CT}/status/start`);
    await statusBecomes('running');

    const { config, status } = await read();
    expect(config).toMatchObject({
      hostname: 'tf-bpg-ct',
      cores: 1,
      memory: 128,
      swap: 0,
      onboot: 1,
      tty: 2,
      cmode: 'tty',
      console: 1,
      arch: 'amd64',
    });
    expect(config['net0']).toMatch(/name=eth0/);
    expect(config['net0']).toMatch(/hwaddr=[0-9A-F:]{17}/);
    expect(config['cpulimit']).toBeUndefined();
    expect(status).toMatchObject({ status: 'running', name: 'tf-bpg-ct', vmid: VMID });
  });

  it('updates: grows the root to 1 GiB, adds a mount point and a second NIC', async () => {
    await bpg.call('PUT', `${CT}/config`, {
      mp0: 'acl=0,backup=0,size=1G,mp=/mnt/data,quota=0,ro=0,replicate=1,shared=0,volume=local:1',
      net0: NIC('eth0'),
      net1: NIC('eth1'),
    });
    await bpg.task('PUT', `${CT}/resize`, { disk: 'rootfs', size: '1G' });

    const { config } = await read();
    expect(config['rootfs']).toMatch(/size=1G/);
    expect(config['mp0']).toMatch(/^local:201\/subvol-201-disk-\d,.*mp=\/mnt\/data/);
    expect(config['net1']).toMatch(/name=eth1/);
  });

  it('deletes: shuts the container down, destroys it, and then cannot read its status', async () => {
    await bpg.task('POST', `${CT}/status/shutdown`, { forceStop: 1, timeout: 55 });
    await statusBecomes('stopped');
    await bpg.task('DELETE', CT);
    expect((await bpg.failure('GET', `${CT}/status/current`)).status).toBe(404);
  });
});
