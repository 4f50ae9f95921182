import type { RequestFrame } from '@corral/protocol';
import type { FakeAgent } from '@corral/testing';
import { call, dataOf, expectError, type Form } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { finished } from '../../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { StorageModule } from '../../storage/storage.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestsModule } from '../guests.module.js';

/** PVE's EFI vars disk and TPM state through create, config changes, clone and destroy, with a fake agent that records what it is asked. */
describe('EFI disks (efidisk0) and TPM state (tpmstate0) through the API', () => {
  let t: TestApp;
  let agent: FakeAgent;
  const asked: RequestFrame[] = [];

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule, StorageModule] });
    const credential = await joinNode(t, 'pve1');
    agent = await onlineAgent(t, 'pve1', credential, {
      answer: (request) => {
        asked.push(request);
        return request.command === 'storage.activate' ? { result: { active: true } } : { result: null };
      },
    });
    dataOf(await call(t, 'POST', '/storage', { form: { storage: 'isos', type: 'dir', path: '/srv/isos', content: 'iso' } }));
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });
  beforeEach(() => {
    asked.length = 0;
  });

  const config = async (vmid: number) => dataOf<Record<string, unknown>>(await call(t, 'GET', `/nodes/pve1/qemu/${vmid}/config`));
  const create = async (form: Form) => finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu', { form })));
  const sent = (command: string) => asked.find((request) => request.command === command)?.params as Record<string, unknown> | undefined;

  it('creates both after the disks, named, sized and written as PVE shows them, and tells the agent their template and version', async () => {
    const form = {
      vmid: 100,
      bios: 'ovmf',
      machine: 'q35',
      efidisk0: 'local:1,efitype=4m,pre-enrolled-keys=1',
      tpmstate0: 'local:1,version=v2.0',
      scsi0: 'local:1',
    };
    expect(await create(form)).toBe('OK');
    const created = await config(100);
    expect(created['scsi0']).toBe('local:100/vm-100-disk-0.qcow2,size=1G');
    expect(created['efidisk0']).toBe('local:100/vm-100-disk-1.qcow2,efitype=4m,pre-enrolled-keys=1,size=528K');
    expect(created['tpmstate0']).toBe('local:100/vm-100-disk-2.raw,size=4M,version=v2.0');
    expect(sent('guest.create')).toMatchObject({
      allocate: ['scsi0', 'efidisk0', 'tpmstate0'],
      guest: {
        volumes: expect.arrayContaining([
          {
            key: 'efidisk0',
            volid: 'local:100/vm-100-disk-1.qcow2',
            path: '/var/lib/vz/images/100/vm-100-disk-1.qcow2',
            format: 'qcow2',
            size: 528 * 1024,
            efivars: { type: '4m', msKeys: true },
          },
          {
            key: 'tpmstate0',
            volid: 'local:100/vm-100-disk-2.raw',
            path: '/var/lib/vz/images/100/vm-100-disk-2.raw',
            format: 'raw',
            size: 4 * 1024 ** 2,
            tpm: 'v2.0',
          },
        ]),
      },
    });
  });

  it('refuses bad values with a 400 naming the key, and creates nothing', async () => {
    for (const [key, value, message] of [
      ['efidisk0', 'local:1,efitype=8m', 'efitype: must be one of 2m, 4m'],
      ['efidisk0', 'local:1,pre-enrolled-keys=1', 'pre-enrolled-keys: needs efitype=4m'],
      ['efidisk0', 'local:1,efitype=2m,pre-enrolled-keys=1', 'pre-enrolled-keys: needs efitype=4m'],
      ['tpmstate0', 'local:1,version=v3.0', 'version: must be one of v1.2, v2.0'],
      ['tpmstate0', 'local:1,cache=none', "unknown item 'cache'"],
      ['efidisk0', 'isos:1,efitype=4m', 'isos'],
      ['tpmstate0', 'isos:1', 'isos'],
    ] as const) {
      expectError(await call(t, 'POST', '/nodes/pve1/qemu', { form: { vmid: 110, [key]: value } }), 400, message, key);
    }
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/110/config'), 404, 'does not exist');
    expect(asked.filter((request) => request.command.startsWith('guest.'))).toEqual([]);
  });

  it('adds both through a config change, as new volumes the agent makes (2m by default: 128K)', async () => {
    expect(await create({ vmid: 101, scsi0: 'local:1' })).toBe('OK');
    asked.length = 0;
    expect(
      dataOf(await call(t, 'PUT', '/nodes/pve1/qemu/101/config', { form: { efidisk0: 'local:1,format=raw', tpmstate0: 'local:1' } })),
    ).toBeNull();
    const changed = await config(101);
    expect(changed['efidisk0']).toBe('local:101/vm-101-disk-1.raw,size=128K');
    expect(changed['tpmstate0']).toBe('local:101/vm-101-disk-2.raw,size=4M');
    expect(sent('guest.volume.allocate')).toMatchObject({
      volumes: [
        { key: 'efidisk0', format: 'raw', size: 128 * 1024, efivars: { type: '2m', msKeys: false } },
        { key: 'tpmstate0', format: 'raw', size: 4 * 1024 ** 2, tpm: 'v1.2' },
      ],
    });
    expectError(
      await call(t, 'PUT', '/nodes/pve1/qemu/101/config', { form: { efidisk0: 'local:1,efitype=4m,pre-enrolled-keys=1,format=qcow3' } }),
      400,
      'format',
      'efidisk0',
    );
  });

  it('copies them in a full clone and a linked clone of a template alike: each VM has its own vars and TPM', async () => {
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/100/clone', { form: { newid: 120 } })))).toBe(
      'OK',
    );
    const full = await config(120);
    expect(full['efidisk0']).toBe('local:120/vm-120-disk-1.qcow2,efitype=4m,pre-enrolled-keys=1,size=528K');
    expect(full['tpmstate0']).toBe('local:120/vm-120-disk-2.raw,size=4M,version=v2.0');
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/101/template')))).toBe('OK');
    asked.length = 0;
    expect(
      await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/qemu/101/clone', { form: { newid: 121, full: 0 } }))),
    ).toBe('OK');
    const linked = await config(121);
    expect(linked['scsi0']).toBe('local:101/vm-101-disk-0.qcow2/121/vm-121-disk-0.qcow2,size=1G');
    expect(linked['efidisk0']).toBe('local:121/vm-121-disk-1.raw,size=128K');
    expect(linked['tpmstate0']).toBe('local:121/vm-121-disk-2.raw,size=4M');
    const target = sent('guest.clone')?.['target'] as { volumes: { key: string; base?: string }[] };
    expect(target.volumes.filter((volume) => volume.base !== undefined).map((volume) => volume.key)).toEqual(['scsi0']);
  });

  it('destroys them with the VM', async () => {
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'DELETE', '/nodes/pve1/qemu/120')))).toBe('OK');
    const volumes = (sent('guest.destroy')?.['guest'] as { volumes: { key: string; volid: string }[] }).volumes;
    expect(volumes.map((volume) => volume.key).sort()).toEqual(['efidisk0', 'scsi0', 'tpmstate0']);
    expectError(await call(t, 'GET', '/nodes/pve1/qemu/120/config'), 404, 'does not exist');
  });
});
