import type { GuestRuntime } from '@corral/protocol';
import { waitFor, type FakeAgent } from '@corral/testing';
import { addUser, basic, call, dataOf, grant, write } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { AclEntryRow } from '../../access/entities/acl-entry.entity.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { ClusterModule } from '../cluster.module.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
const ALICE = basic('alice@pve', 'alice-secret-1');

type Entry = Record<string, unknown>;

describe('/cluster/resources as things change', () => {
  let t: TestApp;
  const agents: FakeAgent[] = [];
  let used = 40 * GIB;
  let asked = 0;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule] });
    for (const node of ['pve1', 'pve2']) {
      const credential = await joinNode(t, node);
      agents.push(
        await onlineAgent(t, node, credential, {
          answer: (request) => {
            if (request.command !== 'storage.status') return { result: null };
            if (node === 'pve1') asked += 1;
            return { result: { active: true, total: 100 * GIB, used, avail: 100 * GIB - used } };
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
    const running: GuestRuntime = { vmid: 100, type: 'qemu', status: 'running', pid: 4242, uptime: 5, cpu: 0.25, mem: 64 * MIB };
    const whole = (agents[1] as FakeAgent).send({ type: 'report', payload: { kind: 'runtime', guests: [running] } });
    await waitFor(async () => (await guests())[0]?.status === 'running', { timeoutMs: 5000, what: 'the whole report' });
    expect((await guests())[0]).toEqual(expect.objectContaining({ status: 'running', cpu: 0.25 }));
    (agents[1] as FakeAgent).send({ type: 'report', payload: { kind: 'runtime', guests: [], gone: [100], since: whole } });
    await waitFor(async () => (await guests())[0]?.status === 'stopped', { timeoutMs: 5000, what: 'the report of changes' });

    // The ACL: alice sees 101 once granted, and no longer 100 once its entry is gone.
    await grant(t, { path: '/vms/101', type: 'user', ugid: 'alice@pve', roleid: 'PVEAuditor' });
    expect((await guests()).map((guest) => guest.vmid)).toEqual([100, 101]);
    await write(t, (db) => db.delete(AclEntryRow, { path: '/vms/100', ugid: 'alice@pve' }));
    expect((await guests()).map((guest) => guest.vmid)).toEqual([101]);
  });

  it("shows each storage's sizes as the node last reported them, asking again in the background once they are 10 s old", async () => {
    const sizes = async () =>
      dataOf<Entry[]>(await call(t, 'GET', '/cluster/resources', { query: 'type=storage', as: ALICE }))
        .filter((storage) => storage.node === 'pve1')
        .map(({ storage, disk, maxdisk }) => ({ storage, disk, maxdisk }));
    expect(await sizes()).toEqual([{ storage: 'local', disk: 40 * GIB, maxdisk: 100 * GIB }]);
    used = 50 * GIB;
    // Within 10 s the last answer stands, and the agent is not asked.
    const before = asked;
    expect(await sizes()).toEqual([{ storage: 'local', disk: 40 * GIB, maxdisk: 100 * GIB }]);
    expect(asked).toBe(before);
    const now = Date.now.bind(Date);
    const later = jest.spyOn(Date, 'now').mockImplementation(() => now() + 10_000);
    try {
      // The list asks again and shows what it knew meanwhile; the next one shows the new answer.
      expect(await sizes()).toEqual([{ storage: 'local', disk: 40 * GIB, maxdisk: 100 * GIB }]);
      await waitFor(async () => (await sizes())[0]?.disk === 50 * GIB, { timeoutMs: 5000, what: 'the new sizes' });
      expect(asked).toBe(before + 1);
    } finally {
      later.mockRestore();
    }
  });
});
