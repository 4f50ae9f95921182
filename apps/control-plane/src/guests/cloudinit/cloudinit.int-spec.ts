import { call, dataOf, expectError } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { FakeGuestNode } from '../../../test-support/fake-guest-node.js';
import { finished } from '../../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestRow } from '../../inventory/guests/guest.entity.js';
import { GuestsModule } from '../guests.module.js';

const KEYS = encodeURIComponent('ssh-ed25519 AAAAC3Nza ops@host\n');

describe("a VM's cloud-init drive through the API (/nodes/{node}/qemu/{vmid}/cloudinit)", () => {
  let t: TestApp;
  const pve1 = new FakeGuestNode(4242);

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule] });
    pve1.agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), { answer: (request) => pve1.answer(request) });
    const form = {
      vmid: 100,
      name: 'web1',
      scsi0: 'local:1',
      ide2: 'local:cloudinit',
      net0: 'virtio,bridge=vmbr0',
      ipconfig0: 'ip=192.0.2.10/24,gw=192.0.2.1',
      ciuser: 'ops',
      cipassword: 'secret-pw',
      sshkeys: KEYS,
    };
    expect(await done(dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form })))).toBe('OK');
    expect(await done(dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 102, scsi0: 'local:1' } })))).toBe('OK');
  });
  afterAll(async () => {
    pve1.agent.close();
    await t.close();
  });
  beforeEach(() => {
    pve1.asked.length = 0;
  });

  const done = (upid: string) => finished(t, 'pve1', upid);
  const path = (vmid: number, rest = '') => `/nodes/pve1/qemu/${vmid}${rest}`;
  const config = async (vmid: number) => dataOf<Record<string, string | number>>(await call(t, 'GET', path(vmid, '/config')));
  const pending = async (vmid: number) => dataOf<{ key: string }[]>(await call(t, 'GET', path(vmid, '/cloudinit')));
  const asked = () => pve1.asked.map((request) => request.command);
  const params = (command: string) =>
    pve1.asked.find((request) => request.command === command)?.params as Record<string, unknown> | undefined;

  it('names the drive as PVE does, stores the password hashed and shows it masked', async () => {
    expect(await config(100)).toMatchObject({
      ide2: 'local:100/vm-100-cloudinit.qcow2,media=cdrom',
      cipassword: '**********',
      ciuser: 'ops',
    });
    const stored = await t.dataSource.manager.findOneByOrFail(GuestRow, { vmid: 100 });
    expect(stored.config['cipassword']).toMatch(/^\$6\$[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{86}$/);
  });

  it('dumps the generated files: user-data with the user, hash and keys, network-config, meta-data', async () => {
    const user = dataOf<string>(await call(t, 'GET', path(100, '/cloudinit/dump?type=user')));
    expect(user).toContain('user: ops\npassword: $6$');
    expect(user).toContain('ssh_authorized_keys:\n  - ssh-ed25519 AAAAC3Nza ops@host\n');
    const network = dataOf<string>(await call(t, 'GET', path(100, '/cloudinit/dump?type=network')));
    expect(network).toContain("        address: '192.0.2.10'\n        netmask: '255.255.255.0'\n        gateway: '192.0.2.1'\n");
    expect(dataOf<string>(await call(t, 'GET', path(100, '/cloudinit/dump?type=meta')))).toMatch(/^instance-id: [0-9a-f]{40}\n$/);
    expectError(await call(t, 'GET', path(100, '/cloudinit/dump?type=vendor')), 400, 'must be user, network or meta', 'type');
  });

  it('writes the drive before each start, and lists later changes as pending until PUT .../cloudinit writes them', async () => {
    expect(await done(dataOf<string>(await call(t, 'POST', path(100, '/status/start'))))).toBe('OK');
    expect(asked()).toEqual(['guest.cloudinit.write', 'guest.start']);
    const write = params('guest.cloudinit.write') as {
      label: string;
      volume: { volid: string; path: string };
      files: { path: string; content?: string }[];
    };
    expect(write.label).toBe('cidata');
    expect(write.volume).toMatchObject({
      volid: 'local:100/vm-100-cloudinit.qcow2',
      path: '/var/lib/vz/images/100/vm-100-cloudinit.qcow2',
    });
    expect(write.files.map((file) => file.path)).toEqual(['/user-data', '/network-config', '/meta-data', '/vendor-data']);
    expect(write.files[0]?.content).toBe(dataOf<string>(await call(t, 'GET', path(100, '/cloudinit/dump?type=user'))));
    expect(await done(dataOf<string>(await call(t, 'POST', path(100, '/status/stop'))))).toBe('OK');

    expect(
      await call(t, 'PUT', path(100, '/config'), { form: { ciuser: 'dev', searchdomain: 'example.org', delete: 'sshkeys' } }),
    ).toMatchObject({ status: 200 });
    expect(await pending(100)).toEqual([
      { key: 'cipassword', value: '**********' },
      { key: 'ciuser', value: 'ops', pending: 'dev' },
      { key: 'ipconfig0', value: 'ip=192.0.2.10/24,gw=192.0.2.1' },
      { key: 'searchdomain', pending: 'example.org' },
      { key: 'sshkeys', value: KEYS, delete: 1 },
    ]);
    pve1.asked.length = 0;
    expect(dataOf(await call(t, 'PUT', path(100, '/cloudinit')))).toBeNull();
    expect(asked()).toEqual(['guest.cloudinit.write']);
    expect(await pending(100)).toEqual([
      { key: 'cipassword', value: '**********' },
      { key: 'ciuser', value: 'dev' },
      { key: 'ipconfig0', value: 'ip=192.0.2.10/24,gw=192.0.2.1' },
      { key: 'searchdomain', value: 'example.org' },
    ]);
  });

  it('replaces a part with a cicustom snippet, and refuses one on a storage that does not exist', async () => {
    expect(await call(t, 'PUT', path(100, '/config'), { form: { cicustom: 'user=local:snippets/user.yaml' } })).toMatchObject({
      status: 200,
    });
    expect(dataOf(await call(t, 'PUT', path(100, '/cloudinit')))).toBeNull();
    const write = params('guest.cloudinit.write') as { files: Record<string, string>[] };
    expect(write.files[0]).toEqual({ path: '/user-data', snippet: '/var/lib/vz/snippets/user.yaml' });
    expect(await call(t, 'PUT', path(100, '/config'), { form: { cicustom: 'user=nowhere:snippets/user.yaml' } })).toMatchObject({
      status: 200,
    });
    expectError(await call(t, 'PUT', path(100, '/cloudinit')), 404, "storage 'nowhere' does not exist");
    expect(await call(t, 'PUT', path(100, '/config'), { form: { delete: 'cicustom' } })).toMatchObject({ status: 200 });
  });

  it('refuses a second drive, and PUT or dump on a VM without one', async () => {
    expectError(
      await call(t, 'PUT', path(100, '/config'), { form: { ide0: 'local:cloudinit' } }),
      400,
      'a VM has one cloud-init drive, and ide2 is one already',
      'ide0',
    );
    expectError(
      await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 103, ide0: 'local:cloudinit', sata0: 'local:cloudinit' } }),
      400,
      'a VM has one cloud-init drive',
      'sata0',
    );
    expectError(await call(t, 'PUT', path(102, '/cloudinit')), 409, 'VM 102 has no cloud-init drive');
    expectError(await call(t, 'GET', path(102, '/cloudinit/dump?type=user')), 409, 'VM 102 has no cloud-init drive');
    expect(asked()).toEqual([]);
  });

  it('gives a clone its own drive, and frees it when the clone is destroyed', async () => {
    expect(await done(dataOf<string>(await call(t, 'POST', path(100, '/clone'), { form: { newid: 101 } })))).toBe('OK');
    expect(await config(101)).toMatchObject({ ide2: 'local:101/vm-101-cloudinit.qcow2,media=cdrom' });
    pve1.asked.length = 0;
    expect(await done(dataOf<string>(await call(t, 'DELETE', path(101))))).toBe('OK');
    expect(asked()).toEqual(['guest.destroy', 'guest.volume.free']);
    expect(params('guest.volume.free')).toMatchObject({ vmid: 101, volumes: [{ key: 'ide2', volid: 'local:101/vm-101-cloudinit.qcow2' }] });
  });

  it('removes the drive with delete=ide2 (no unusedN), and adds one on a config change', async () => {
    expect(await call(t, 'PUT', path(100, '/config'), { form: { delete: 'ide2' } })).toMatchObject({ status: 200 });
    expect(asked()).toEqual(['guest.volume.free']);
    const after = await config(100);
    expect(Object.keys(after).filter((key) => key === 'ide2' || key.startsWith('unused'))).toEqual([]);
    expect(await call(t, 'PUT', path(100, '/config'), { form: { sata1: 'local:cloudinit,format=raw' } })).toMatchObject({ status: 200 });
    expect(await config(100)).toMatchObject({ sata1: 'local:100/vm-100-cloudinit.raw,media=cdrom' });
  });
});
