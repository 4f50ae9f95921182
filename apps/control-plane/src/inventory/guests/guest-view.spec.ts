import type { GuestRuntime } from '@corral/protocol';
import { pino } from 'pino';
import type { DatabaseNotifications } from '../../database/notifications.js';
import type { GuestRow } from './guest.entity.js';
import { GuestView } from './guest-view.js';
import type { GuestsRepository } from './guests.repository.js';

const row = (vmid: number, status: GuestRow['status']): GuestRow =>
  ({ vmid, type: 'qemu', node: 'pve2', config: {}, lock: null, lockTask: null, status, createdAt: new Date(0) }) as GuestRow;

const running = (vmid: number): GuestRuntime => ({ vmid, type: 'qemu', status: 'running', pid: 4242, uptime: 60, cpu: 0.25, mem: 1 << 20 });
const stopped = (vmid: number): GuestRuntime => ({ vmid, type: 'qemu', status: 'stopped', uptime: 0, cpu: 0, mem: 0 });

async function viewOf(...rows: GuestRow[]): Promise<GuestView> {
  const repository = { all: () => Promise.resolve(rows) } as unknown as GuestsRepository;
  const notifications = { subscribe: () => undefined } as unknown as DatabaseNotifications;
  const view = new GuestView(repository, pino({ level: 'silent' }), notifications);
  await view.onModuleInit();
  return view;
}

describe("the guests' run state from a report another replica shared", () => {
  it("is the row's: a report published before the stop the row records shows the guest stopped, without figures", async () => {
    const view = await viewOf(row(100, 'stopped'));
    view.showReport('pve2', [running(100)]);
    expect(view.get(100)?.runtime).toBeUndefined();
  });

  it("shows the report's figures of a guest the row says runs, with the row's run state", async () => {
    const view = await viewOf(row(100, 'running'), row(101, 'paused'));
    view.showReport('pve2', [running(100), running(101)]);
    expect(view.get(100)?.runtime).toEqual(running(100));
    expect(view.get(101)?.runtime).toEqual({ ...running(101), status: 'paused' });
  });

  it('shows a guest started after the report was published as running, with no figures yet', async () => {
    const view = await viewOf(row(100, 'running'));
    view.showReport('pve2', [stopped(100)]);
    expect(view.get(100)?.runtime).toMatchObject({ status: 'running', uptime: 0 });
    expect(view.get(100)?.runtime?.pid).toBeUndefined();
  });
});

describe('the list of every guest', () => {
  it('is kept in vmid order, with a changed guest replaced in its place, until a guest comes or goes', async () => {
    const rows = [row(102, 'stopped'), row(100, 'stopped'), row(101, 'running')];
    const repository = {
      all: () => Promise.resolve(rows),
      some: (vmids: readonly number[]) => Promise.resolve(rows.filter((each) => vmids.includes(each.vmid))),
    } as unknown as GuestsRepository;
    const notifications = { subscribe: () => undefined } as unknown as DatabaseNotifications;
    const view = new GuestView(repository, pino({ level: 'silent' }), notifications);
    await view.onModuleInit();
    const vmids = () => view.list().map((state) => state.row.vmid);
    expect(vmids()).toEqual([100, 101, 102]);
    const kept = view.list();
    expect(view.list()).toBe(kept);

    view.showReport('pve2', [running(101)]);
    expect(view.list()).toBe(kept);
    expect(view.list()[1]).toBe(view.get(101));
    expect(view.list()[1]?.runtime).toEqual(running(101));

    rows.push(row(99, 'stopped'));
    await view.reload(99);
    expect(vmids()).toEqual([99, 100, 101, 102]);
    rows.splice(rows.indexOf(rows.find((each) => each.vmid === 100) as GuestRow), 1);
    await view.reload(100);
    expect(vmids()).toEqual([99, 101, 102]);

    // Loading every row again keeps the run states it knew.
    await view.onModuleInit();
    expect(view.get(101)?.runtime).toEqual(running(101));
    expect(view.list().map((state) => state.runtime?.status)).toEqual([undefined, 'running', undefined]);
  });
});

describe('the locks on a node', () => {
  it('are seen in the rows the view holds, node by node', async () => {
    const view = await viewOf(row(100, 'stopped'), { ...row(101, 'stopped'), node: 'pve3', lock: 'backup' } as GuestRow);
    expect(view.hasLockOn('pve3')).toBe(true);
    expect(view.hasLockOn('pve2')).toBe(false);
    expect(view.hasLockOn('ghost')).toBe(false);
  });
});
