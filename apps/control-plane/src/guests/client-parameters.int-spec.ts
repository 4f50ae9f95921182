import type { RequestFrame } from '@corral/protocol';
import type { FakeAgent } from '@corral/testing';
import { addUser, apiToken, basic, call, dataOf, expectError, grant, type Form } from '../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { finished } from '../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { AccessModule } from '../access/access.module.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { GuestsModule } from './guests.module.js';

/** What PVE clients send on create and update (bpg, Telmate, Ansible), and how Corral takes it. */
describe('the parameters PVE clients send', () => {
  let t: TestApp;
  let agent: FakeAgent;
  const asked: RequestFrame[] = [];

  beforeAll(async () => {
    t = await startTestApp({ imports: [AccessModule, ClusterModule, TasksModule, GuestsModule] });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), {
      answer: (request) => {
        asked.push(request);
        return { result: null };
      },
    });
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });
  beforeEach(() => {
    asked.length = 0;
  });

  const made = async (path: string, form: Form) => finished(t, 'pve1', dataOf<string>(await call(t, 'POST', path, { form })));
  const config = async (path: string) => dataOf<Record<string, unknown>>(await call(t, 'GET', `${path}/config`));

  it("creates bpg's VM (keyboard=en-us, template=0 and an empty start order) and answers its config typed", async () => {
    expect(
      await made('/nodes/pve1/qemu', {
        vmid: 100,
        name: 'bpg',
        keyboard: 'en-us',
        template: 0,
        startup: '',
        cores: 2,
        sockets: 1,
        onboot: 1,
        numa: 0,
        cpulimit: '1.5',
        memory: 512,
        agent: 'enabled=1',
        scsi0: 'local:1',
      }),
    ).toBe('OK');
    const vm = await config('/nodes/pve1/qemu/100');
    expect(vm).toMatchObject({
      name: 'bpg',
      keyboard: 'en-us',
      cores: 2,
      sockets: 1,
      onboot: 1,
      numa: 0,
      cpulimit: '1.5',
      memory: '512',
      agent: '1',
    });
    expect(vm).not.toHaveProperty('startup');
    expect(vm).not.toHaveProperty('template');
  });

  it('takes the device keys PVE has, checked as PVE checks them', async () => {
    const form = {
      watchdog: 'model=i6300esb,action=reset',
      rng0: 'source=/dev/urandom',
      hostpci0: '0000:01:00.0,pcie=1',
      usb0: 'host=1234:5678',
      tdf: 1,
      startdate: 'now',
      hugepages: '2',
      'allow-ksm': 0,
    };
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form }))).toBeNull();
    expect(await config('/nodes/pve1/qemu/100')).toMatchObject({
      watchdog: 'i6300esb,action=reset',
      rng0: '/dev/urandom',
      hostpci0: '0000:01:00.0,pcie=1',
      usb0: '1234:5678',
      tdf: 1,
      startdate: 'now',
      hugepages: '2',
      'allow-ksm': 0,
    });
    expectError(
      await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { watchdog: 'model=i8254' } }),
      400,
      "parameter 'watchdog': model: must be one of i6300esb, ib700",
    );
    expectError(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { keyboard: 'klingon' } }), 400, "parameter 'keyboard'");
  });

  it('gives a NIC added by a config update a MAC address, and keeps the MAC of a NIC it changes', async () => {
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { net1: 'virtio,bridge=vmbr0' } }))).toBeNull();
    const added = String((await config('/nodes/pve1/qemu/100'))['net1']);
    expect(added).toMatch(/^virtio=BC:24:11:[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2},bridge=vmbr0$/);
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { net1: 'e1000,bridge=vmbr1' } }))).toBeNull();
    expect((await config('/nodes/pve1/qemu/100'))['net1']).toBe(`e1000=${added.slice(7, 24)},bridge=vmbr1`);
  });

  it('empties the start order with an empty value, as PVE', async () => {
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { startup: 'order=2,up=30' } }))).toBeNull();
    expect((await config('/nodes/pve1/qemu/100'))['startup']).toBe('order=2,up=30');
    expect(dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { startup: '' } }))).toBeNull();
    expect(await config('/nodes/pve1/qemu/100')).not.toHaveProperty('startup');
  });

  it('lets only root@pam itself set args and hookscript, as PVE', async () => {
    await addUser(t, 'admin@pve', { password: 'admin-password' });
    await grant(t, { path: '/', type: 'user', ugid: 'admin@pve', roleid: 'Administrator' });
    const token = dataOf<{ value: string }>(await call(t, 'POST', '/access/users/root@pam/token/ci', { form: { privsep: 0 } }));
    for (const as of [basic('admin@pve', 'admin-password'), apiToken('root@pam!ci', token.value)]) {
      expectError(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { args: '-no-hpet' }, as }), 403, 'permission denied');
      expectError(
        await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 101, hookscript: 'local:snippets/hook.sh' }, as }),
        403,
        'permission denied',
      );
    }
    expect(
      dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/100/config', { form: { args: '-no-hpet', hookscript: 'local:snippets/hook.sh' } })),
    ).toBeNull();
    expect(await config('/nodes/pve1/qemu/100')).toMatchObject({ args: '-no-hpet', hookscript: 'local:snippets/hook.sh' });
  });

  it('creates a template with template=1, and takes cdrom as the ide2 alias it is', async () => {
    expect(await made('/nodes/pve1/qemu', { vmid: 102, template: 1, cdrom: 'none', scsi0: 'local:1' })).toBe('OK');
    expect(asked.map((request) => request.command)).toEqual(['guest.create', 'guest.template']);
    expect(await config('/nodes/pve1/qemu/102')).toMatchObject({ template: 1, ide2: 'none,media=cdrom' });
    expectError(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 103, template: 1, start: 1 } }), 400, 'a template cannot start');
    expectError(
      await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 103, cdrom: 'none', ide2: 'none,media=cdrom' } }),
      400,
      'is an alias of ide2',
    );
    expectError(
      await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 103, 'live-restore': 1 } }),
      400,
      'Corral does not start a VM while it is restored',
    );
  });

  it("creates Ansible's container (force=0, a root password, SSH keys): the agent gets the password's hash, never the password", async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl admin@example';
    const form = {
      vmid: 200,
      hostname: 'ct1',
      ostemplate: 'local:vztmpl/busybox.tar.gz',
      force: 0,
      password: 'secret-pw',
      'ssh-public-keys': key,
      unprivileged: 1,
      cores: 1,
      memory: 256,
      swap: 0,
      template: 0,
    };
    expect(await made('/nodes/pve1/lxc', form)).toBe('OK');
    const params = asked[0]?.params as Record<string, unknown>;
    expect(params['rootPasswordHash']).toMatch(/^\$6\$[./0-9A-Za-z]{16}\$[./0-9A-Za-z]{86}$/);
    expect(params['sshPublicKeys']).toBe(key);
    expect(JSON.stringify(asked)).not.toContain('secret-pw');
    const ct = await config('/nodes/pve1/lxc/200');
    expect(ct).toMatchObject({ hostname: 'ct1', unprivileged: 1, cores: 1, memory: 256, swap: 0 });
    expect(JSON.stringify(ct)).not.toContain('secret-pw');
    expectError(
      await call(t, 'POST', '/nodes/pve1/lxc', { form: { vmid: 201, ostemplate: 'local:vztmpl/busybox.tar.gz', force: 1 } }),
      400,
      'applies to restores only',
    );
    expectError(
      await call(t, 'POST', '/nodes/pve1/lxc', { form: { vmid: 201, ostemplate: 'local:vztmpl/busybox.tar.gz', password: 'abc' } }),
      400,
      "parameter 'password': must be at least 5 characters",
    );
  });
});
