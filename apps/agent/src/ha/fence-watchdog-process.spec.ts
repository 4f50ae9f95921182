import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@corral/testing';
import { alive, killAll, standIn, watchdogScript } from '../../test-support/fence-watchdog-process.js';
import { removeHostRoot } from '../../test-support/host-roots.js';
import { processOrder, type FenceOrder, type WatchdogOrders } from '../drivers/fence-orders.js';
import { openHost, type Host } from '../host/host.js';
import { runningWatchdog, watchdogPidFile } from './watchdog-pid-file.js';

const MS = 1_000_000n;
const DEADLINE_MS = 1500;

/** The watchdog as the agent runs it, its log captured. */
function startWatchdog(host: Host) {
  const child = spawn(process.execPath, [watchdogScript(), '--host-root', host.root], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const tell = (orders: WatchdogOrders) => child.stdin.write(`${JSON.stringify(orders)}\n`);
  return { child, tell, log: () => log, exited: once(child, 'exit') };
}

describe('the fence watchdog process', () => {
  let dir: string;
  let host: Host;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-watchdog-'));
    host = await openHost(dir);
  });
  afterEach(async () => {
    killAll(children.splice(0));
    await removeHostRoot(dir);
  });

  async function guarded(order?: (pid: number) => Promise<FenceOrder | undefined>) {
    const guest = await standIn();
    children.push(guest);
    const watchdog = startWatchdog(host);
    children.push(watchdog.child);
    const told = process.hrtime.bigint();
    const deadline = told + BigInt(DEADLINE_MS) * MS;
    watchdog.tell({ deadlineNs: String(deadline), guests: [{ label: 'VM 100', order: await (order ?? processOrder)(guest.pid) }] });
    await waitFor(async () => (await runningWatchdog(host)) === watchdog.child.pid, {
      timeoutMs: 5000,
      what: 'the watchdog to arm (its pid file)',
    });
    return { guest, watchdog, deadline };
  }

  it("kills the guest's process at the deadline, not before, once the agent's pipe closed, then exits and removes its pid file", async () => {
    const { guest, watchdog, deadline } = await guarded();
    watchdog.child.stdin?.end(); // the agent is gone
    const [killed] = (await once(guest, 'exit')) as [number | null, string | null];
    expect(process.hrtime.bigint()).toBeGreaterThanOrEqual(deadline);
    expect(guest.signalCode ?? killed).toBe('SIGKILL');
    await watchdog.exited;
    expect(watchdog.log()).toMatch(/the agent is gone: fencing at its lease's deadline/);
    expect(watchdog.log()).toContain(`fence watchdog: VM 100: SIGKILL sent to pid ${guest.pid}`);
    await expect(readFile(watchdogPidFile(host), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('leaves the guest alone when stopped with SIGTERM, even with the pipe closed', async () => {
    const { guest, watchdog } = await guarded();
    watchdog.child.stdin?.end();
    watchdog.child.kill('SIGTERM');
    await watchdog.exited;
    await new Promise((resolve) => setTimeout(resolve, DEADLINE_MS + 300));
    expect(alive(guest)).toBe(true);
    expect(watchdog.log()).toMatch(/stopped: another agent holds the lease now/);
  });

  it('does not kill a pid whose start time differs from the order (the pid was reused)', async () => {
    const reused = async (pid: number) => {
      const order = await processOrder(pid);
      return order?.kind === 'process' ? { ...order, startTicks: order.startTicks - 1 } : undefined;
    };
    const { guest, watchdog } = await guarded(reused);
    watchdog.child.stdin?.end();
    await watchdog.exited;
    expect(alive(guest)).toBe(true);
    expect(watchdog.log()).toContain(`fence watchdog: VM 100: pid ${guest.pid} (started at tick`);
  });

  it('kills by a pid file only the process whose command line names that pid file', async () => {
    const pidFile = join(dir, 'guest.pid');
    const named = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)', pidFile], { stdio: 'ignore' });
    children.push(named);
    await writeFile(pidFile, `${String(named.pid)}\n`);
    const other = await guarded(async () => ({ kind: 'pidfile', path: join(dir, 'other.pid') }));
    await writeFile(join(dir, 'other.pid'), `${other.guest.pid}\n`);
    other.watchdog.child.stdin?.end();
    await other.watchdog.exited;
    expect(alive(other.guest)).toBe(true);
    expect(other.watchdog.log()).toContain(`is gone already (or is another program now)`);

    const { watchdog } = await guarded(async () => ({ kind: 'pidfile', path: pidFile }));
    watchdog.child.stdin?.end();
    await once(named, 'exit');
    expect(named.signalCode).toBe('SIGKILL');
    // Its line about the kill is written after the kill.
    await watchdog.exited;
    expect(watchdog.log()).toContain(`fence watchdog: VM 100: SIGKILL sent to pid ${String(named.pid)}`);
  });

  it('runs an argument vector without a shell', async () => {
    const marker = join(dir, 'stopped by qm');
    const { watchdog } = await guarded(async () => ({ kind: 'run', argv: ['touch', marker] }));
    watchdog.child.stdin?.end();
    await watchdog.exited;
    await expect(readFile(marker, 'utf8')).resolves.toBe('');
    expect(watchdog.log()).toContain(`fence watchdog: VM 100: touch ${marker}: done`);
  });
});
