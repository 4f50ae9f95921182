import { decodeGo, decodeGoList } from './support/go-json.js';
import { telmateClient } from './support/dialects.js';
import { NODE, PATIENCE_MS, startNativeNode, vmTemplate, type NativeNode } from './support/native-node.js';
import type { ProviderClient } from './support/provider-client.js';
import { TELMATE_PENDING, TELMATE_QEMU_CONFIG, TELMATE_RESOURCE, TELMATE_STATUS } from './support/telmate-types.js';

const TEMPLATE = 9000;
const VMID = 102;
const VM = `/nodes/${NODE}/qemu/${VMID}`;

/**
 * Telmate's `proxmox_vm_qemu`, replayed from the provider's source (`proxmox/resource_vm_qemu.go`
 * and the library's `VmRef.CloneQemu`, `guestGetQemuConfig`, `guestClient.Delete`) for
 *
 *   target_node = "host1"   clone_id = 9000   full_clone = true   vmid = 102   name = "tf-telmate-vm"
 *
 * Its reads build the config from `GET .../pending`: each key's pending value, or else its value.
 */
describe('Telmate proxmox_vm_qemu (replayed)', () => {
  let node: NativeNode;
  let telmate: ProviderClient;

  beforeAll(async () => {
    node = await startNativeNode('telmate-qemu');
    telmate = await telmateClient(node.cp, node.rootPassword, PATIENCE_MS);
    await vmTemplate(node, TEMPLATE);
  }, 3 * PATIENCE_MS);
  afterAll(() => node?.stop());

  it('creates: finds the clone source in the cluster resources and clones it', async () => {
    const guests = decodeGoList<{ vmid: number; node: string; type: string }>(
      TELMATE_RESOURCE,
      await telmate.call('GET', '/cluster/resources', { type: 'vm' }),
      'Telmate GET /cluster/resources',
    );
    expect(guests.find((guest) => guest.vmid === TEMPLATE)).toMatchObject({ node: NODE, type: 'qemu' });
    await telmate.task('POST', `/nodes/${NODE}/qemu/${TEMPLATE}/clone`, { full: 1, name: 'tf-telmate-vm', newid: VMID, target: NODE });
  });

  it('reads what needs no pending values: the status, and the HA resource\'s absence, which must read "no such resource"', async () => {
    expect(await telmate.read(`${VM}/status/current`, TELMATE_STATUS)).toMatchObject({ status: 'stopped', name: 'tf-telmate-vm' });
    // guestGetQemuConfig tolerates only an error whose message starts with "no such resource".
    expect((await telmate.failure('GET', `/cluster/ha/resources/${VMID}`)).text).toMatch(/^no such resource/);
  });

  it('reads the config as the provider does: GET .../pending, each key its pending value or else its value, decoded with its assertions', async () => {
    const entries = decodeGoList<{ key: string; value?: unknown; pending?: unknown }>(
      TELMATE_PENDING,
      await telmate.call('GET', `${VM}/pending`),
      'Telmate GET .../pending',
    );
    const config = Object.fromEntries(entries.map((entry) => [entry.key, entry.pending ?? entry.value]));
    expect(decodeGo(TELMATE_QEMU_CONFIG, config, 'Telmate config from .../pending')).toMatchObject({ name: 'tf-telmate-vm' });
  });

  /** The config as the provider reads it: GET .../pending, each key its pending value or else its value. */
  async function pendingConfig(): Promise<Record<string, unknown>> {
    const entries = decodeGoList<{ key: string; value?: unknown; pending?: unknown }>(
      TELMATE_PENDING,
      await telmate.call('GET', `${VM}/pending`),
      'Telmate GET .../pending',
    );
    return Object.fromEntries(entries.map((entry) => [entry.key, entry.pending ?? entry.value]));
  }

  it('updates as QemuGuest.Update does: grows scsi0 (a resize in KiB), then one config PUT adding scsi1 and net1, then reads pending', async () => {
    // resizeDisks: `size` in kibibytes with a `K`, before the config is written.
    await telmate.task('PUT', `${VM}/resize`, { disk: 'scsi0', size: `${1024 * 1024}K` });
    // mapToApiUpdate: a new disk as `<storage>:<GiB>` (backup=0 unless asked), a new NIC as `<model>,bridge=`.
    expect(await telmate.call('PUT', `${VM}/config`, { net1: 'virtio,bridge=vmbr0', scsi1: 'local:1,backup=0' })).toBeNull();
    const config = await pendingConfig();
    expect(config['scsi0']).toMatch(/size=1G/);
    expect(config['scsi1']).toMatch(new RegExp(`^local:${VMID}/vm-${VMID}-disk-\\d\\.qcow2,backup=0,size=1G`));
    expect(config['net1']).toMatch(/^virtio=[0-9A-F:]{17},bridge=vmbr0/);
  });

  it('creates with cloud-init as the provider does after the clone: the drive `<storage>:cloudinit,format=`, ciuser and ipconfig0 in one config PUT', async () => {
    await telmate.call('PUT', `${VM}/config`, {
      ciuser: 'tf',
      ide2: 'local:cloudinit,format=qcow2',
      ipconfig0: 'ip=192.0.2.20/24,gw=192.0.2.1',
    });
    const config = await pendingConfig();
    expect(config).toMatchObject({ ciuser: 'tf', ipconfig0: 'ip=192.0.2.20/24,gw=192.0.2.1' });
    expect(config['ide2']).toMatch(new RegExp(`^local:${VMID}/vm-${VMID}-cloudinit\\.qcow2,media=cdrom`));
    expect(await telmate.call('GET', `${VM}/cloudinit/dump`, { type: 'user' })).toMatch(/user: tf\n/);
    expect(await telmate.call('GET', `${VM}/cloudinit/dump`, { type: 'network' })).toMatch(/address: '?192\.0\.2\.20'?/);
  });

  it('deletes: reads the protection flag from the config, destroys the VM, and then its config does not exist', async () => {
    expect((await telmate.read(`${VM}/config`, TELMATE_QEMU_CONFIG))['protection']).toBeUndefined();
    await telmate.task('DELETE', VM);
    expect((await telmate.failure('GET', `${VM}/config`)).text).toMatch(/ does not exist$/);
  });
});
