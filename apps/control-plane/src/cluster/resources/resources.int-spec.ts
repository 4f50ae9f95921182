import type { GuestRuntime, StorageSpace, WatchedStorage } from '@corral/protocol';
import { waitFor, type FakeAgent } from '@corral/testing';
import { addUser, basic, call, dataOf, grant, write } from '../../../test-support/access-fixture.js';
import { INVENTORY, joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { AclEntryRow } from '../../access/entities/acl-entry.entity.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { StorageModule } from '../../storage/storage.module.js';
import { ClusterModule } from '../cluster.module.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
const ALICE = basic('alice@pve', 'alice-secret-1');

type Entry = Record<string, unknown>;

describe('/cluster/resources as things change', () => {
  let t: TestApp;
  const agents: FakeAgent[] = [];
  /** The storages each agent was told to watch, in the order it was told. */
  const watches = new Map<string, WatchedStorage[][]>();

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, StorageModule] });
    for (const node of ['pve1', 'pve2']) {
      const credential = await joinNode(t, node);
      agents.push(
        await onlineAgent(t, node, credential, {
          answer: (request) => {
            if (request.command === 'storage.watch') {
              const { storages } = request.params as { storages: WatchedStorage[] };
              watches.set(node, [...(watches.get(node) ?? []), storages]);
            }
            return request.command === 'storage.activate' ? { result: { active: true } } : { result: null };
          },
        }),
      );
    }
    await addUser(t, 'alice@pve', { password: 'alice-secret-1' });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'alice@pve', roleid: 'PVEAuditor' });
    await grant(t, { path: '/storage', type: 'user', ugid: 'alice@pve', roleid: 'PVEAuditor' });
    for (const [vmid, name] of [
      [100, 'web'],
      [101, 'db'],
    ] as const) {
      await t.app.get(GuestsRepository).insert({
        vmid,
        type: 'qemu',
        node: 'pve1',
        config: { name, memory: '512', scsi0: `local:${vmid}/vm-${vmid}-disk-0.qcow2,size=8G` },
        lock: null,
      });
      await t.app.get(GuestView).reload(vmid);
    }
  });
  afterAll(async () => {
    for (const agent of agents) agent.close();
    await t.close();
  });

  const guests = async (as = ALICE) =>
    dataOf<Entry[]>(await call(t, 'GET', '/cluster/resources', { query: 'type=vm', as })).map(
      ({ vmid, node, name, maxmem, maxdisk, status, cpu }) => ({ vmid, node, name, maxmem, maxdisk, status, cpu }),
    );
  const change = async (vmid: number, update: (config: Record<string, string>) => Record<string, unknown>) => {
    await t.app.get(GuestsRepository).update(vmid, async (row) => update({ ...row.config }));
    await t.app.get(GuestView).reload(vmid);
  };
  const entry = { status: 'stopped', cpu: 0 };

  it("shows a guest's new config, its new node and its run state at once, and only to who may see it", async () => {
    expect(await guests()).toEqual([{ vmid: 100, node: 'pve1', name: 'web', maxmem: 512 * MIB, maxdisk: 8 * GIB, ...entry }]);
    await change(100, (config) => ({
      config: { ...config, name: 'web2', memory: '1024', scsi0: `${config['scsi0']?.replace('8G', '16G')}` },
    }));
    expect(await guests()).toEqual([{ vmid: 100, node: 'pve1', name: 'web2', maxmem: 1024 * MIB, maxdisk: 16 * GIB, ...entry }]);
    await change(100, () => ({ node: 'pve2' }));
    expect(await guests()).toEqual([{ vmid: 100, node: 'pve2', name: 'web2', maxmem: 1024 * MIB, maxdisk: 16 * GIB, ...entry }]);

    // A whole runtime report of pve2, then one of what changed since.
    const running: GuestRuntime = {
      vmid: 100,
      type: 'qemu',
      status: 'running',
      pid: 4242,
      uptime: 5,
      cpu: 0.25,
      mem: 64 * MIB,
      netin: 2048,
      diskwrite: 4096,
    };
    const whole = (agents[1] as FakeAgent).send({ type: 'report', payload: { kind: 'runtime', guests: [running] } });
    await waitFor(async () => (await guests())[0]?.status === 'running', { timeoutMs: 5000, what: 'the whole report' });
    expect((await guests())[0]).toEqual(expect.objectContaining({ status: 'running', cpu: 0.25 }));
    // Its traffic since it started, as PVE lists it; a counter the driver does not read is 0.
    const [listed] = dataOf<Entry[]>(await call(t, 'GET', '/cluster/resources', { query: 'type=vm' }));
    expect(listed).toMatchObject({ netin: 2048, netout: 0, diskread: 0, diskwrite: 4096 });
    (agents[1] as FakeAgent).send({ type: 'report', payload: { kind: 'runtime', guests: [], gone: [100], since: whole } });
    await waitFor(async () => (await guests())[0]?.status === 'stopped', { timeoutMs: 5000, what: 'the report of changes' });

    // The ACL: alice sees 101 once granted, and no longer 100 once its entry is gone.
    await grant(t, { path: '/vms/101', type: 'user', ugid: 'alice@pve', roleid: 'PVEAuditor' });
    expect((await guests()).map((guest) => guest.vmid)).toEqual([100, 101]);
    await write(t, (db) => db.delete(AclEntryRow, { path: '/vms/100', ugid: 'alice@pve' }));
    expect((await guests()).map((guest) => guest.vmid)).toEqual([101]);
  });

  it("shows each storage's sizes as its node's inventory last reported them, and tells each agent which storages to report", async () => {
    const sizes = async () =>
      dataOf<Entry[]>(await call(t, 'GET', '/cluster/resources', { query: 'type=storage', as: ALICE }))
        .filter((storage) => storage.node === 'pve1')
        .map(({ storage, disk, maxdisk }) => ({ storage, disk, maxdisk }));
    const local = { storage: 'local', path: '/var/lib/vz', mountpoint: false };
    // Each agent was told at its welcome.
    await waitFor(() => watches.get('pve1')?.length === 1 && watches.get('pve2')?.length === 1, { timeoutMs: 5000, what: 'the watches' });
    expect(watches.get('pve1')).toEqual([[local]]);
    // Nothing reported yet: the entry has no sizes.
    expect(await sizes()).toEqual([{ storage: 'local', disk: undefined, maxdisk: undefined }]);

    const report = (storages: StorageSpace[]) => (agents[0] as FakeAgent).send({ type: 'report', payload: { ...INVENTORY, storages } });
    const space = (used: number): StorageSpace => ({ storage: 'local', active: true, total: 100 * GIB, used, avail: 100 * GIB - used });
    report([space(40 * GIB)]);
    await waitFor(async () => (await sizes())[0]?.disk === 40 * GIB, { timeoutMs: 5000, what: 'the first sizes' });
    expect(await sizes()).toEqual([{ storage: 'local', disk: 40 * GIB, maxdisk: 100 * GIB }]);
    report([space(50 * GIB)]);
    await waitFor(async () => (await sizes())[0]?.disk === 50 * GIB, { timeoutMs: 5000, what: 'the new sizes' });
    // An inactive storage (nothing mounted at its path) shows no sizes, as a node that reports none.
    report([{ storage: 'local', active: false, total: 0, used: 0, avail: 0 }]);
    await waitFor(async () => (await sizes())[0]?.disk === undefined, { timeoutMs: 5000, what: 'the inactive storage' });

    // A storage for pve1 only tells pve1 again, and so does its removal; pve2's list did not change.
    dataOf(await call(t, 'POST', '/storage', { form: { storage: 'usb', type: 'dir', path: '/mnt/usb', nodes: 'pve1', 'is-rootdir': 1 } }));
    const usb = { storage: 'usb', path: '/mnt/usb', mountpoint: true };
    await waitFor(() => watches.get('pve1')?.length === 2, { timeoutMs: 5000, what: 'the watch of the new storage' });
    expect(watches.get('pve1')?.[1]).toEqual([local, usb]);
    report([space(50 * GIB), { storage: 'usb', active: true, total: 10 * GIB, used: GIB, avail: 9 * GIB }]);
    await waitFor(async () => (await sizes())[1]?.disk === GIB, { timeoutMs: 5000, what: 'the new storage' });
    expect(await sizes()).toEqual([
      { storage: 'local', disk: 50 * GIB, maxdisk: 100 * GIB },
      { storage: 'usb', disk: GIB, maxdisk: 10 * GIB },
    ]);
    dataOf(await call(t, 'DELETE', '/storage/usb'));
    await waitFor(() => watches.get('pve1')?.length === 3, { timeoutMs: 5000, what: 'the watch without the storage' });
    expect(watches.get('pve1')?.[2]).toEqual([local]);
    expect(await sizes()).toEqual([{ storage: 'local', disk: 50 * GIB, maxdisk: 100 * GIB }]);
    expect(watches.get('pve2')).toEqual([[local]]);
  });
});
