import { decodeGoList } from './support/go-json.js';
import { telmateClient } from './support/dialects.js';
import { containerTemplate, NODE, PATIENCE_MS, startNativeNode, type NativeNode } from './support/native-node.js';
import type { ProviderClient } from './support/provider-client.js';
import { TELMATE_LXC_CONFIG, TELMATE_RESOURCE, TELMATE_STATUS, TELMATE_VERSION } from './support/telmate-types.js';

const TEMPLATE = 9100;
const VMID = 202;
const CT = `/nodes/${NODE}/lxc/${VMID}`;

/**
 * Telmate's `proxmox_lxc`, replayed request by request from the provider's source
 * (`proxmox/resource_lxc.go`: resourceLxcCreate, resourceLxcRead, resourceLxcUpdate, and the
 * library's `ConfigLxc`, `VmRef.CloneLxc` and `guestClient.Delete`) for this resource:
 *
 *   target_node = "host1"   clone = "9100"   full = true   vmid = 202   hostname = "tf-telmate-ct"
 *   memory = 128   swap = 0   cores = 1   cpuunits = 1024   arch = "amd64"   start = false
 *   rootfs { storage = "local"  size = "1G" }   network { name = "eth0"  bridge = "vmbr0"  ip = "dhcp" }
 *
 * then updated (memory 192, a 2 GiB root, a mount point, a second NIC, start = true) and destroyed
 * while it runs. Errors are read as `Session.do` reads them, so the control plane answers them in
 * PVE's shape (CORRAL_ERROR_FORMAT=pve).
 */
describe('Telmate proxmox_lxc (replayed)', () => {
  let node: NativeNode;
  let telmate: ProviderClient;
  let rootfs = '';
  let hwaddr = '';

  beforeAll(async () => {
    node = await startNativeNode('telmate-lxc');
    telmate = await telmateClient(node.cp, node.rootPassword, PATIENCE_MS);
    await containerTemplate(node, TEMPLATE);
  }, 3 * PATIENCE_MS);
  afterAll(() => node?.stop());

  const guests = async () =>
    decodeGoList<{ vmid: number; node: string; type: string }>(
      TELMATE_RESOURCE,
      await telmate.call('GET', '/cluster/resources', { type: 'vm' }),
      'Telmate GET /cluster/resources',
    );

  /** `NewConfigLxcFromApi`: the config, then the HA resource, whose absence (an error) it tolerates. */
  async function configFromApi() {
    const config = await telmate.read(`${CT}/config`, TELMATE_LXC_CONFIG);
    const ha = await telmate.failure('GET', `/cluster/ha/resources/${VMID}`);
    expect(ha.status).toBeGreaterThanOrEqual(400);
    return config;
  }

  /** resourceLxcRead: the guest in the cluster's resources, its config, and its state. */
  async function read() {
    expect((await guests()).find((guest) => guest.vmid === VMID)).toMatchObject({ node: NODE, type: 'lxc' });
    const config = await configFromApi();
    const status = await telmate.read(`${CT}/status/current`, TELMATE_STATUS);
    return { config, status };
  }

  it('creates: clones the template, grows its root, configures it, and reads it back', async () => {
    expect((await guests()).find((guest) => guest.vmid === TEMPLATE)).toMatchObject({ node: NODE, type: 'lxc' });
    await telmate.task('POST', `/nodes/${NODE}/lxc/${TEMPLATE}/clone`, {
      full: 1,
      hostname: 'tf-telmate-ct',
      newid: VMID,
      storage: 'local',
      target: NODE,
    });
    const cloned = await configFromApi();
    // processDiskResize: the clone's root is smaller than the resource's.
    expect(cloned['rootfs']).toMatch(/size=256M/);
    await telmate.task('PUT', `${CT}/resize`, { disk: 'rootfs', size: '1G' });
    rootfs = (await configFromApi())['rootfs'] as string;
    await telmate.call('PUT', `${CT}/config`, {
      arch: 'amd64',
      cmode: 'tty',
      console: 1,
      cores: 1,
      cpulimit: 0,
      cpuunits: 1024,
      hostname: 'tf-telmate-ct',
      memory: 128,
      net0: 'name=eth0,bridge=vmbr0,ip=dhcp',
      onboot: 0,
      protection: 0,
      rootfs: `${rootfs.split(',')[0] ?? ''},size=1G`,
      swap: 0,
      tty: 2,
    });

    const { config, status } = await read();
    expect(config).toMatchObject({
      hostname: 'tf-telmate-ct',
      memory: 128,
      cores: 1,
      cpuunits: 1024,
      swap: 0,
      onboot: 0,
      rootfs: expect.stringMatching(/size=1G/),
    });
    expect(config['net0']).toMatch(/hwaddr=[0-9A-F:]{17}/);
    hwaddr = /hwaddr=([0-9A-F:]{17})/.exec(config['net0'] as string)?.[1] ?? '';
    expect(status['status']).toBe('stopped');
  });

  it('updates: grows the root to 2 GiB, adds a mount point and a NIC, changes the memory, and starts it', async () => {
    await telmate.task('PUT', `${CT}/resize`, { disk: 'rootfs', size: '2G' });
    await telmate.call('PUT', `${CT}/config`, {
      arch: 'amd64',
      cmode: 'tty',
      console: 1,
      cores: 1,
      cpulimit: 0,
      cpuunits: 1024,
      hostname: 'tf-telmate-ct',
      memory: 192,
      mp0: 'local:1,mp=/mnt/data',
      net0: `name=eth0,bridge=vmbr0,hwaddr=${hwaddr},ip=dhcp`,
      net1: 'name=eth1,bridge=vmbr0,ip=dhcp',
      onboot: 0,
      protection: 0,
      rootfs: `${rootfs.split(',')[0] ?? ''},size=2G`,
      swap: 0,
      tty: 2,
    });
    // `start` changed: the state, then a start.
    expect((await telmate.read(`${CT}/status/current`, TELMATE_STATUS))['status']).toBe('stopped');
    await telmate.task('POST', `${CT}/status/start`);

    const { config, status } = await read();
    expect(config).toMatchObject({
      memory: 192,
      rootfs: expect.stringMatching(/size=2G/),
      mp0: expect.stringMatching(/mp=\/mnt\/data/),
      net1: expect.stringMatching(/name=eth1/),
    });
    expect(config['net0']).toContain(`hwaddr=${hwaddr}`);
    expect(status['status']).toBe('running');
  });

  it('deletes a running container: the destroy is refused as running, so it stops it (overrule-shutdown) and destroys it', async () => {
    expect((await telmate.read(`${CT}/config`, TELMATE_LXC_CONFIG))['protection']).toBe(0);
    const refused = await telmate.failure('DELETE', CT);
    expect(refused.text).toMatch(/ is running$/);
    expect((await telmate.read('/version', TELMATE_VERSION))['version']).toMatch(/^9\./);
    await telmate.task('POST', `${CT}/status/stop`, { 'overrule-shutdown': 1 });
    await telmate.task('DELETE', CT);
    expect((await telmate.failure('GET', `${CT}/config`)).text).toMatch(/ does not exist$/);
  });
});
