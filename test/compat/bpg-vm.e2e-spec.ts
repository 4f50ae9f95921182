import { decodeGoList } from './support/go-json.js';
import { BPG_POOL, BPG_POOL_MEMBER, BPG_RESOURCE, BPG_VM_CONFIG, BPG_VM_STATUS } from './support/bpg-types.js';
import { bpgClient } from './support/dialects.js';
import { NODE, PATIENCE_MS, startNativeNode, vmTemplate, type NativeNode } from './support/native-node.js';
import type { ProviderClient } from './support/provider-client.js';

const TEMPLATE = 9000;
const VMID = 101;
const VM = `/nodes/${NODE}/qemu/${VMID}`;
const GiB = 1024 ** 3;
/** bpg's disk block as this resource declares it (`datastore_id = "local"`, defaults for the rest), after `file=`/`size=`. */
const DISK_OPTIONS = 'aio=io_uring,backup=1,iothread=0,ssd=0,discard=ignore,cache=none,replicate=1';
const NIC = 'model=virtio,bridge=vmbr0,firewall=0';
const CLOUDINIT_VMID = 103;
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBpg tf@example';

/** Go's `url.QueryEscape` with `+` written `%20`, as bpg escapes `sshkeys` before the form encodes it again. */
function goQueryEscape(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * bpg's `proxmox_virtual_environment_vm`, replayed request by request from the provider's source
 * (`proxmoxtf/resource/vm/vm.go`: vmCreateClone, vmRead, vmUpdate, vmDelete) for this resource:
 *
 *   clone { vm_id = 9000, full = true }   vm_id = 101   name = "tf-bpg-vm"   pool_id = "tf"   started = false
 *   cpu { cores = 1, sockets = 1, type = "qemu64", units = 100 }   memory { dedicated = 128 }
 *   agent { enabled = false }   operating_system { type = "l26" }   network_device { bridge = "vmbr0" }
 *   disk { interface = "scsi0", datastore_id = "local", size = 1 }
 *
 * then updated to a 2 GiB scsi0, a second disk scsi1 and a second NIC, and destroyed. Every
 * answer is decoded as the provider decodes it (support/bpg-types.ts).
 */
describe('bpg proxmox_virtual_environment_vm (replayed)', () => {
  let node: NativeNode;
  let bpg: ProviderClient;

  beforeAll(async () => {
    node = await startNativeNode('bpg-vm');
    bpg = await bpgClient(node.cp, node.rootPassword, PATIENCE_MS);
    await vmTemplate(node, TEMPLATE);
    await node.api.send('/pools', 'POST', { poolid: 'tf' });
  }, 3 * PATIENCE_MS);
  afterAll(() => node?.stop());

  /** vmRead: the guest's node from the cluster's resources, its config and status, and its pool. */
  async function read() {
    const resources = decodeGoList<{ vmid: number; node: string }>(
      BPG_RESOURCE,
      await bpg.call('GET', '/cluster/resources', { type: 'vm' }),
      'bpg GET /cluster/resources',
    );
    expect(resources.find((resource) => resource.vmid === VMID)?.node).toBe(NODE);
    const config = await bpg.read(`${VM}/config`, BPG_VM_CONFIG);
    const status = await bpg.read(`${VM}/status/current`, BPG_VM_STATUS);
    const pools = decodeGoList<{ poolid: string }>(BPG_POOL, await bpg.call('GET', '/pools'), 'bpg GET /pools');
    const members = await Promise.all(
      pools.map(async (pool) =>
        decodeGoList<{ members?: unknown }>(
          BPG_POOL,
          await bpg.call('GET', `/pools?poolid=${pool.poolid}`),
          'bpg GET /pools?poolid=',
        ).flatMap((full) =>
          decodeGoList<{ id: string }>(BPG_POOL_MEMBER, full.members ?? [], 'bpg pool members').map((member) => [pool.poolid, member.id]),
        ),
      ),
    );
    return { config, status, pool: members.flat().find(([, id]) => id === `qemu/${VMID}`)?.[0] };
  }

  it('creates: clones the template, configures the clone, grows its disk, and reads it back', async () => {
    await bpg.task('POST', `/nodes/${NODE}/qemu/${TEMPLATE}/clone`, { full: 1, name: 'tf-bpg-vm', newid: VMID, pool: 'tf' });
    // WaitForVMConfigUnlock, then the config the update is planned against.
    expect((await bpg.read(`${VM}/status/current`, BPG_VM_STATUS))['lock']).toBeUndefined();
    await bpg.read(`${VM}/config`, BPG_VM_CONFIG);
    await bpg.call('PUT', `${VM}/config`, {
      agent: 'enabled=0,fstrim_cloned_disks=0,type=virtio',
      balloon: 0,
      cores: 1,
      cpu: 'qemu64',
      cpuunits: 100,
      delete: Array.from({ length: 31 }, (_, index) => `net${index + 1}`).join(','),
      memory: 128,
      net0: NIC,
      numa: 0,
      onboot: 1,
      ostype: 'l26',
      sockets: 1,
    });
    // disk.UpdateClone: the cloned scsi0 merged with the planned options, then grown to the planned size.
    const cloned = (await bpg.read(`${VM}/config`, BPG_VM_CONFIG))['scsi0'] as string;
    const volume = cloned.split(',')[0] ?? '';
    await bpg.call('PUT', `${VM}/config`, { scsi0: `file=${volume},format=qcow2,size=${64 * 1024 * 1024},${DISK_OPTIONS}` });
    await bpg.task('PUT', `${VM}/resize`, { disk: 'scsi0', size: GiB });

    const { config, status, pool } = await read();
    expect(config).toMatchObject({
      name: 'tf-bpg-vm',
      cores: 1,
      sockets: 1,
      cpu: 'qemu64',
      cpuunits: 100,
      numa: 0,
      onboot: 1,
      ostype: 'l26',
      agent: expect.stringMatching(/^(enabled=)?0,/),
    });
    expect(String(config['memory'])).toBe('128');
    expect(config['scsi0']).toMatch(/size=1G/);
    expect(config['net0']).toMatch(/^virtio=[0-9A-F:]{17},bridge=vmbr0/);
    expect(status).toMatchObject({ status: 'stopped', vmid: VMID, name: 'tf-bpg-vm' });
    expect(pool).toBe('tf');
  });

  it('updates: grows scsi0 to 2 GiB, adds the disk scsi1 and the NIC net1', async () => {
    await bpg.call('PUT', `${VM}/config`, {
      delete: Array.from({ length: 30 }, (_, index) => `net${index + 2}`).join(','),
      net0: NIC,
      net1: NIC,
      scsi1: `file=local:1,size=${GiB},${DISK_OPTIONS}`,
    });
    await bpg.task('PUT', `${VM}/resize`, { disk: 'scsi0', size: 2 * GiB });

    const { config } = await read();
    expect(config['scsi0']).toMatch(/size=2G/);
    expect(config['scsi1']).toMatch(/^local:101\/vm-101-disk-\d\.qcow2,.*size=1G/);
    expect(config['net1']).toMatch(/^virtio=[0-9A-F:]{17},bridge=vmbr0/);
  });

  it('deletes: destroys the VM with its disks, and then cannot read its status', async () => {
    expect((await bpg.read(`${VM}/status/current`, BPG_VM_STATUS))['status']).toBe('stopped');
    await bpg.task('DELETE', `${VM}?destroy-unreferenced-disks=1&purge=1`);
    // WaitForVMStatus(""): the status read fails, as ErrResourceDoesNotExist (a 404).
    expect((await bpg.failure('GET', `${VM}/status/current`)).status).toBe(404);
  });

  it('creates with `initialization` (a cloud-init drive, ciuser, ipconfig0, sshkeys) and regenerates it (PUT .../cloudinit) after an update', async () => {
    const CI = `/nodes/${NODE}/qemu/${CLOUDINIT_VMID}`;
    await bpg.task('POST', `/nodes/${NODE}/qemu/${TEMPLATE}/clone`, { full: 1, name: 'tf-bpg-ci', newid: CLOUDINIT_VMID });
    await bpg.read(`${CI}/config`, BPG_VM_CONFIG);
    // vmCreateClone: the drive as a CustomStorageDevice with only its volume (hence the trailing comma), and CustomCloudInitConfig.
    await bpg.call('PUT', `${CI}/config`, {
      ciuser: 'tf',
      ide2: 'file=local:cloudinit,',
      ipconfig0: 'gw=192.0.2.1,ip=192.0.2.10/24',
      sshkeys: goQueryEscape(SSH_KEY),
    });
    const config = await bpg.read(`${CI}/config`, BPG_VM_CONFIG);
    expect(config).toMatchObject({ ciuser: 'tf', ipconfig0: 'gw=192.0.2.1,ip=192.0.2.10/24' });
    expect(config['ide2']).toMatch(new RegExp(`^local:${CLOUDINIT_VMID}/vm-${CLOUDINIT_VMID}-cloudinit\\.qcow2,media=cdrom`));
    expect(await bpg.call('GET', `${CI}/cloudinit/dump`, { type: 'user' })).toMatch(
      /user: tf\n[^]*- ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBpg tf@example/,
    );

    // vmUpdate: the changed initialization sent again, then RebuildCloudInitDisk (a PUT without parameters).
    await bpg.call('PUT', `${CI}/config`, { ciuser: 'tf2', ipconfig0: 'ip=dhcp', sshkeys: goQueryEscape(SSH_KEY) });
    expect(await bpg.call('PUT', `${CI}/cloudinit`)).toBeNull();
    expect(
      ((await bpg.call('GET', `${CI}/cloudinit`)) as { key: string; pending?: unknown }[]).filter((entry) => entry.pending !== undefined),
    ).toEqual([]);
    expect(await bpg.call('GET', `${CI}/cloudinit/dump`, { type: 'user' })).toMatch(/user: tf2\n/);
    expect(await bpg.call('GET', `${CI}/cloudinit/dump`, { type: 'network' })).toMatch(/type: dhcp/);

    await bpg.task('DELETE', `${CI}?destroy-unreferenced-disks=1&purge=1`);
  });
});
