import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@corral/testing';
import { alive, killAll, standIn, watchdogScript } from '../../test-support/fence-watchdog-process.js';
import { removeHostRoot } from '../../test-support/host-roots.js';
import { processOrder } from '../drivers/fence-orders.js';
import { openHost, type Host } from '../host/host.js';
import { jsonLogger } from '../logging/logger.js';
import { runningWatchdog, watchdogLogFile } from './watchdog-pid-file.js';
import { WatchdogSupervisor } from './watchdog-supervisor.js';

const OLD_DEADLINE_MS = 1500;
const VM100 = [{ type: 'qemu', vmid: 100 }] as const;

describe('the agent handing the fence watchdog over', () => {
  let dir: string;
  let host: Host;
  let guest: ChildProcess & { pid: number };
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-handover-'));
    host = await openHost(dir);
    guest = await standIn();
    children.push(guest);
  });
  afterEach(async () => {
    killAll(children.splice(0));
    await removeHostRoot(dir);
  });

  /** The watchdog an earlier agent process left: armed with its lease's deadline, its pipe closed by that agent's death. */
  async function earlierWatchdog(): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
    const child = spawn(process.execPath, [watchdogScript(), '--host-root', host.root], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    children.push(child);
    const deadlineNs = process.hrtime.bigint() + BigInt(OLD_DEADLINE_MS) * 1_000_000n;
    child.stdin?.end(
      `${JSON.stringify({ deadlineNs: String(deadlineNs), guests: [{ label: 'VM 100', order: await processOrder(guest.pid) }] })}\n`,
    );
    await waitFor(async () => (await runningWatchdog(host)) === child.pid, { timeoutMs: 5000, what: 'the earlier watchdog to arm' });
    return { child, exited: once(child, 'exit') };
  }

  function newAgent() {
    const lines: string[] = [];
    const supervisor = new WatchdogSupervisor({
      host,
      driver: { fenceOrder: (_type, _vmid) => processOrder(guest.pid) },
      logger: jsonLogger((line) => lines.push((JSON.parse(line) as { msg: string }).msg)),
      script: watchdogScript(),
    });
    return { supervisor, lines };
  }

  it('starts its own watchdog on its first lease with guests, then stops the earlier one: the guest outlives the earlier deadline', async () => {
    const earlier = await earlierWatchdog();
    const { supervisor, lines } = newAgent();
    // Created, it leaves the earlier watchdog alone: only a lease of its own may replace that one's.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alive(earlier.child)).toBe(true);
    supervisor.update(performance.now() + 4000, VM100);
    await supervisor.settled();
    const pid = supervisor.pid ?? 0;
    expect(await runningWatchdog(host)).toBe(pid);
    await earlier.exited;
    expect(earlier.child.signalCode).toBeNull(); // it exited by itself on SIGTERM, without fencing
    await new Promise((resolve) => setTimeout(resolve, OLD_DEADLINE_MS));
    expect(alive(guest)).toBe(true);
    expect(lines).toContain("fence watchdog: stopped the earlier agent's watchdog: this agent's lease covers the node now");
    // A lease without guests disarms this agent's watchdog too.
    supervisor.update(undefined, []);
    await supervisor.settled();
    await waitFor(() => supervisor.pid === undefined, { timeoutMs: 5000, what: "the agent's watchdog to exit" });
    expect(alive(guest)).toBe(true);
    expect(await readFile(watchdogLogFile(host), 'utf8')).toMatch(/disarmed: the HA lease lists no guests/);
  });

  it('stops the earlier watchdog at once when its first lease lists no guests', async () => {
    const earlier = await earlierWatchdog();
    const { supervisor } = newAgent();
    supervisor.update(undefined, []);
    await supervisor.settled();
    await earlier.exited;
    expect(supervisor.pid).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, OLD_DEADLINE_MS));
    expect(alive(guest)).toBe(true);
  });

  it('tells its watchdog each renewed deadline: the guest is killed at the last one', async () => {
    const { supervisor } = newAgent();
    const started = performance.now();
    supervisor.update(started + 1000, VM100);
    await supervisor.settled();
    supervisor.update(started + 2000, VM100);
    await supervisor.settled();
    const killed = once(guest, 'exit');
    await new Promise((resolve) => setTimeout(resolve, 1500 - (performance.now() - started)));
    expect(alive(guest)).toBe(true);
    await killed;
    expect(performance.now() - started).toBeGreaterThanOrEqual(2000);
    await waitFor(() => supervisor.pid === undefined, { timeoutMs: 5000, what: 'the watchdog to exit after fencing' });
  }, 15_000);
});
