import type { InventoryReport } from '@corral/protocol';
import { FakeAgent, type FakeAgentOptions } from '@corral/testing';
import { call, dataOf } from './access-fixture.js';
import type { TestApp } from './test-app.js';
import { GuestView } from '../src/inventory/guests/guest-view.js';
import { GuestsRepository } from '../src/inventory/guests/guests.repository.js';

/** An agent's inventory report, as the tests send it. */
export const INVENTORY: InventoryReport = {
  kind: 'inventory',
  cpu: 0.25,
  maxcpu: 8,
  mem: 2e9,
  maxmem: 8e9,
  uptime: 3600,
  disk: 4e10,
  maxdisk: 1e11,
  os: 'Debian GNU/Linux 12 (bookworm)',
  kernel: '6.1.0-test',
};

/** Joins a node through the API (a join token, then the join) and returns its agent's credential. */
export async function joinNode(t: TestApp, node: string, tokenOptions: Record<string, string | number> = {}): Promise<string> {
  const { token } = dataOf<{ token: string }>(await call(t, 'POST', '/cluster/join-tokens', { form: tokenOptions }));
  return dataOf<{ credential: string }>(await call(t, 'POST', '/cluster/join', { form: { token, node }, as: {} })).credential;
}

/** A fake agent of the node, connected and welcomed. */
export async function onlineAgent(
  t: TestApp,
  node: string,
  credential: string,
  options: Partial<FakeAgentOptions> = {},
): Promise<FakeAgent> {
  const agent = await FakeAgent.connect({ url: t.agentUrl, ca: t.cert, node, credential, ...options });
  await agent.hello();
  return agent;
}

/** The events of the outbox, oldest first. */
export async function events(t: TestApp): Promise<{ seq: number; event: string; node: string }[]> {
  const rows = (await t.dataSource.query('SELECT "seq", "event", "node" FROM "events" ORDER BY "seq"')) as {
    seq: string;
    event: string;
    node: string;
  }[];
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/** VM 100 `web` on pve1 (512 MiB, 2 cores, an 8 GiB disk on `local`), stopped, in the database and the guest view. */
export async function addWebVm(t: TestApp): Promise<void> {
  await t.app.get(GuestsRepository).insert({
    vmid: 100,
    type: 'qemu',
    node: 'pve1',
    config: { name: 'web', memory: '512', cores: '2', scsi0: 'local:100/vm-100-disk-0.qcow2,size=8G' },
    lock: null,
  });
  await t.app.get(GuestView).reload(100);
}
