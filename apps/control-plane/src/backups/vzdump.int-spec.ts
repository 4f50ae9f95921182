import type { FakeAgent } from '@corral/testing';
import { call, dataOf, expectError } from '../../test-support/access-fixture.js';
import { events, joinNode, onlineAgent } from '../../test-support/node-fixture.js';
import { finished } from '../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { BackupsModule } from './backups.module.js';

const ARCHIVE = 'volume=local:backup/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst';

describe('/nodes/{node}/vzdump/extractconfig', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, BackupsModule] });
  });
  afterAll(() => t.close());

  it('answers a node that never joined with 404, and a joined node whose agent is away with 503', async () => {
    expectError(await call(t, 'GET', '/nodes/nowhere/vzdump/extractconfig', { query: ARCHIVE }), 404, "node 'nowhere' does not exist");
    await joinNode(t, 'away');
    expectError(await call(t, 'GET', '/nodes/away/vzdump/extractconfig', { query: ARCHIVE }), 503, "node 'away' is offline");
  });
});

describe('/nodes/{node}/vzdump', () => {
  let t: TestApp;
  let agent: FakeAgent;
  const asked: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, BackupsModule] });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), {
      answer: (request) => {
        asked.push(request.command);
        return { failure: 'failed', message: `${request.command} is not expected here` };
      },
    });
    await t.dataSource.query(
      `INSERT INTO "storages" ("storage", "type", "path", "content", "nodes", "shared", "disable") VALUES ('dumps', 'dir', '/srv/dumps', '{backup}', NULL, false, false)`,
    );
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  it('leaves a guest whose backup cannot even start unlocked, with no backup-start event', async () => {
    // A NIC without a MAC: the guest's spec cannot be built, so nothing is sent to the agent.
    await t.dataSource.query(
      `INSERT INTO "guests" ("vmid", "type", "node", "config", "status") VALUES (300, 'qemu', 'pve1', '{"net0": "virtio,bridge=vmbr0"}', 'stopped')`,
    );
    await t.app.get(GuestView).reload(300);
    const upid = dataOf<string>(await call(t, 'POST', '/nodes/pve1/vzdump', { form: { vmid: '300', storage: 'dumps' } }));
    expect(await finished(t, 'pve1', upid)).not.toBe('OK');
    expect(await t.dataSource.query(`SELECT "lock" FROM "guests" WHERE "vmid" = 300`)).toEqual([{ lock: null }]);
    expect((await events(t)).filter((event) => event.event.startsWith('backup-'))).toEqual([]);
    expect(asked).not.toContain('guest.backup');
  });

  it('unlocks a guest whose backup fails on its agent, with a backup-end event of status error', async () => {
    await t.dataSource.query(
      `INSERT INTO "guests" ("vmid", "type", "node", "config", "status") VALUES (301, 'qemu', 'pve1', '{}', 'stopped')`,
    );
    await t.app.get(GuestView).reload(301);
    const upid = dataOf<string>(await call(t, 'POST', '/nodes/pve1/vzdump', { form: { vmid: '301', storage: 'dumps' } }));
    expect(await finished(t, 'pve1', upid)).toBe('job errors');
    expect(await t.dataSource.query(`SELECT "lock", "lock_task" FROM "guests" WHERE "vmid" = 301`)).toEqual([
      { lock: null, lock_task: null },
    ]);
    const backups = (await t.dataSource.query(
      `SELECT "event", "details"->>'status' AS "status" FROM "events" WHERE "vmid" = 301 AND "event" LIKE 'backup-%' ORDER BY "seq"`,
    )) as { event: string; status: string | null }[];
    expect(backups).toEqual([
      { event: 'backup-start', status: null },
      { event: 'backup-end', status: 'error' },
    ]);
    expect(asked).toContain('guest.backup');
  });
});
